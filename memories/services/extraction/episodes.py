"""The episodic layer (seed 004 §3.1): what an event tells, kept whatever the cue tables
recognise.

The cue tables (``heuristic``) turn what they recognise into typed memories; every other
informative sentence of the event is kept, in order, as one episodic memory (or a few,
for a long event): the raw record of what happened, and the base for consolidation. So
nothing said is lost, and nothing is kept twice.

A sentence is informative when, once the greeting or filler before it is set aside, it
says something: a word that is neither grammar, nor a reaction ("great", "wow", "me
too"), nor a formula (thanks, see you, long time no see). The statements before a question
in its sentence count ("I moved last month, can you update my address?"). A question that
asks about the speaker's own affairs is kept whole: "how do I move my pension to Lugano?"
tells what the speaker is doing, which "How are you doing?" does not. When the event says
when the thing happens or happened ("yesterday", "la settimana scorsa", "hace dos meses",
"next Friday", a date), the episode records that day. A dated event keeps what the
speaker goes on to tell of it (``told``): the details of a weekend are that weekend's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

from memories.conf import setting
from memories.services.extraction import patterns as cues
from memories.services.extraction.clauses import STOPWORDS, question_parts
from memories.services.extraction.heuristic import Candidate, Sentence
from memories.services.extraction.normalise import match_form, spot_entities, words
from memories.services.extraction.time_expressions import (
    looks_ahead,
    resolve_time,
    resolve_when,
    still_ahead,
)
from memories.services.extraction.vocabulary import REACTION_WORDS, SENTIMENT_WORDS
from memories.text import clean

_VOCATIVE = re.compile(r",\s*(?-i:[A-ZÀ-Þ][\w'-]*)(?:\s(?-i:[A-ZÀ-Þ][\w'-]*))?\s*([!.…]*)$")
# "What a great idea!", "How lovely!", "¡Qué bien!", "Che bello!": exclamations.
_EXCLAMATION = re.compile(r"^\W*(?:what an?|how|que|qué|che|quanto|cuanto)\s(?:\w+\s?){0,3}\W*$")

# Longer than this, an event's episode is cut at a sentence boundary into several.
MAX_EPISODE = 600
# A dated event keeps what the speaker goes on to tell of it up to this many characters.
MAX_TOLD = 400
# The speaker in a question (English, Italian, Spanish): "how do I…", "posso spostare il mio…",
# "¿puedo mover mi…".
_SPEAKER = (
    "i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours ourselves "
    "io mio mia miei mie noi nostro nostra nostri nostre "
    "yo mi mis nosotros nosotras nuestro nuestra nuestros nuestras"
)
_SPEAKER_WORDS = frozenset(_SPEAKER.split())
# The words of asking itself, which say nothing of what is asked about.
_ASKING_WORDS = (
    "can could would will should shall may might must did does do how what where when why who "
    "which whose whom hmm and the let help want need know tell show explain please think okay "
    "cool puoi puo potresti potete aiutarmi aiutare come cosa quando dove perche chi quale "
    "quali sapere dirmi puedes puede podrias ayudar ayudarme como cuando donde que cual saber "
    "decirme"
)
_ASKING = frozenset(_ASKING_WORDS.split())
# A figure told in a question: digits ("92%", "30 minutes"), not a number word ("you two",
# "one of your challenges").
_FIGURE = re.compile(r"\d")
# Its subject: at least this many words that are neither grammar nor asking.
_QUESTION_SUBJECT = 2
# What is left of a sentence around its typed memories is kept from this many content
# words: "specifically" or "as well" beside a goal tells nothing of its own.
_REST_WORDS = 3
CONFIDENCE = 0.8
IMPORTANCE = 0.4


def informative_part(sentence: str, *, own_questions: bool = True) -> str:
    """What the sentence tells, without the greeting or filler before it; "" if nothing.
    A question about the speaker's own affairs is kept whole unless not ``own_questions``."""
    text = cues.DISCOURSE.sub("", sentence.strip()).strip()
    # A name said to the listener at the end ("That's so cool, Caroline!") tells nothing.
    text = _VOCATIVE.sub("", text)
    if "?" in text or "¿" in text:
        parts = question_parts(text)
        # The question: from its first asking part to the end ("what are some new recipes
        # for the sessions on March 24, since they were extended by 30 minutes?").
        question = text[next(start for _, start, asks in parts if asks) :]
        kept = [part.strip() for part, _, asks in parts if part.strip() and not asks]
        # The speaker's own question is kept whole, with what led to it.
        asked = _proposes_a_day(question) or (
            own_questions and (_own_affairs(question) or _asks_to_be_served(question))
        )
        text = text if asked else ", ".join(kept)
    if cues.ACKNOWLEDGEMENTS.match(match_form(text)) or cues.GREETING.match(match_form(text)):
        return ""
    # What is left once the formulas (thanks, see you, long time no see…) are set aside.
    folded = cues.FORMULAS.sub(" ", match_form(text))
    if _EXCLAMATION.match(folded):
        return ""
    telling = [
        w
        for w in words(folded)
        if (w.isdigit() or len(w) > 1) and w not in STOPWORDS and w not in REACTION_WORDS
    ]
    # "I love it!" is a reaction; "I love hiking" tells something.
    if not set(telling) - SENTIMENT_WORDS:
        return ""
    # What is left is names alone ("Álvaro, buenos días.", "Gracias, Elena."): said to the
    # listener, not of anything.
    if len(telling) <= _NAMES_ALONE and set(telling) <= _capitalised(text):
        return ""
    return clean(text)


# A greeting's names: at most this many words, each written with a capital.
_NAMES_ALONE = 3


def _capitalised(text: str) -> set[str]:
    """The (folded) words of ``text`` written with a capital and without a digit: a code
    or an account number ("IT60X0542…") is not a name."""
    found = re.findall(r"\b(?-i:[A-ZÀ-Þ])[\w'-]*", text)
    return {match_form(w) for w in found if not any(c.isdigit() for c in w)}


# The speaker asks to be served a certain way: "Can you send the reports as PDFs from now
# on?", "¿Me lo pueden mandar cada mes?", "Mi può mandare i report in italiano?". A request
# of how they want things is what they prefer, said as a question.
_SERVED = re.compile(
    r"\b(?:can|could|would|will) you\b.{0,40}\b(?:send|email|mail|post|call|phone|ring|text"
    r"|write|forward|copy|put)\b"
    r"|\b(?:mi|ci)\s(?:puo|potete|potrebbe|potreste|potrebbero)\s(?:\w+\s){0,2}?"
    r"(?:mandare|inviare|spedire|chiamare|scrivere|girare|inoltrare|telefonare)"
    r"|\b(?:puo|potete|potrebbe|potreste)\s(?:\w+\s){0,2}?(?:mandarmi|inviarmi|spedirmi"
    r"|chiamarmi|scrivermi|girarmi|inoltrarmi|telefonarmi|mandarci|scriverci|chiamarci)"
    r"|\b(?:me|nos)\s(?:lo|la|los|las)?\s?(?:puede|pueden|podria|podrian|podeis)\s"
    r"(?:\w+\s){0,2}?(?:mandar|enviar|llamar|escribir|remitir|pasar)"
    r"|\b(?:puede|pueden|podria|podrian)\s(?:\w+\s){0,2}?(?:mandarme|enviarme|llamarme"
    r"|escribirme|mandarmelo|enviarmelo|mandarnos|escribirnos|llamarnos)"
)


def _asks_to_be_served(question: str) -> bool:
    return bool(_SERVED.search(match_form(question)))


def _proposes_a_day(question: str) -> bool:
    """The question puts a day ahead ("¿quedamos dentro de tres semanas?", "shall we meet
    next Tuesday?", "ci vediamo lunedì?"): an appointment proposed is a plan told."""
    folded = match_form(question)
    return resolve_time(folded, _ANY_DAY).target is not None


# Any day will do to tell whether a question names one ahead of it.
_ANY_DAY = datetime(2000, 1, 3, tzinfo=UTC)


def _own_affairs(question: str) -> bool:
    """The speaker asks about something of theirs, or tells something while asking: a
    subject, and a word for the speaker or a figure (``_FIGURE``: "how can Scott keep his
    homework completion rate of 92%?")."""
    folded = match_form(question)
    said = words(folded)
    subject = [
        w
        for w in said
        if len(w) > 2 and w not in STOPWORDS and w not in _SPEAKER_WORDS and w not in _ASKING
    ]
    return len(subject) >= _QUESTION_SUBJECT and (
        bool(_SPEAKER_WORDS.intersection(said)) or _FIGURE.search(folded) is not None
    )


def _untyped(sentence: Sentence, own_questions: bool = True) -> list[str]:
    """What a sentence tells that no typed candidate holds: the sentence's informative part
    when it yields none; else what is left around the candidates' clauses, each stretch kept
    when it says something of its own (``_REST_WORDS`` content words; the question that
    ends it is asked of what the candidates say, and left out): in "I need help with
    my batch job, and I want detailed logs, but since I've never customized the pipeline,
    can you help?" the goal is typed, and the rest kept: "I need help with my batch job …
    but since I've never customized the pipeline"."""
    if not sentence.candidates:
        part = informative_part(sentence.text, own_questions=own_questions)
        return [part] if part else []
    rest = sentence.text
    for candidate in sentence.candidates:
        if candidate.content not in rest:
            return []  # read apart from the sentence's words: the candidates hold it
        rest = rest.replace(candidate.content, "\n", 1)
    stretches = (
        informative_part(s.strip(" ,;:\u2014\u2013-"), own_questions=False)
        for s in rest.split("\n")
    )
    kept = [s for s in stretches if len(_content_words(s)) >= _REST_WORDS]
    return [" … ".join(kept)] if kept else []


def _content_words(text: str) -> list[str]:
    return [w for w in words(match_form(text)) if len(w) > 2 and w not in STOPWORDS]


def told(sentences: list[Sentence]) -> list[Sentence]:
    """The sentences with each dated event holding what the speaker goes on to tell of it:
    "Last weekend I took my family to Jasper. It was amazing! We drove the Icefields
    Parkway." is one event, dated, with its details, not an event and an undated episode.
    What follows is the event's while it is told in plain statements (not a question, a
    listing, nor a sentence with typed memories of its own) and the whole stays within
    ``MAX_TOLD``; the sentences it takes are no episode's."""
    out: list[Sentence] = []
    event: Candidate | None = None
    at = 0  # where in ``out`` the event's sentence is
    for sentence in sentences:
        if event is not None and not sentence.candidates and not sentence.listing:
            part = "" if "?" in sentence.text else informative_part(sentence.text)
            if not part and "?" not in sentence.text:
                out.append(sentence)  # "It was amazing!": nothing to tell; the telling goes on
                continue
            if part and len(event.content) + len(part) < MAX_TOLD:
                entities = {e["type"] for e in spot_entities(part)} - set(event.tags)
                event = replace(
                    event, content=f"{event.content} {part}", tags=(*event.tags, *entities)
                )
                out[at] = replace(out[at], candidates=(event,))
                continue
        event = None
        if len(sentence.candidates) == 1 and not _untyped(sentence):
            only = sentence.candidates[0]
            event = only if (only.kind, only.category) == ("episodic", "event") else None
            at = len(out)
        out.append(sentence)
    return out


# A sentence of fewer content words than this ("Sí, Pozuelo.", "Esatto.") goes with the
# next one (or, last, the one before): alone it says too little to be found.
_FRAGMENT_WORDS = 2


# A sentence that speaks of the one before by a pronoun ("We tried the SORT tracker. I
# prefer it for its simplicity.") is told with it: alone it names nothing.
_REFERS_BACK = re.compile(
    r"\b(?:it|its|this|that|these|those|them|they|questo|questa|questi|queste|quello|quella"
    r"|cio|esto|eso|esta|ese|esa|estos|esos|ello)\b"
)


def _statements(said: list[tuple[str, bool]]) -> list[list[str]]:
    """Each sentence its own statement, a fragment joined to the one after it, a listing
    pasted in, or a sentence that speaks of the one before (``_REFERS_BACK``), to that one
    ("Here is my scheduler: ```…```")."""
    pieces: list[list[str]] = []
    pending: list[str] = []
    for part, listing in said:
        if (listing or _REFERS_BACK.search(match_form(part))) and pieces and not pending:
            pieces[-1].append(part[: MAX_EPISODE * 2])
            continue
        pending.append(part[: MAX_EPISODE * 2])
        if len(_content_words(" ".join(pending))) >= _FRAGMENT_WORDS:
            pieces.append(pending)
            pending = []
    if pending:
        if pieces:
            pieces[-1].extend(pending)
        else:
            pieces.append(pending)
    return pieces


def episodes(
    sentences: list[Sentence], *, language: str, observed_at, own_questions: bool = True
) -> list[Candidate]:
    """The episodic memories of an event: what its sentences tell that no typed candidate
    holds (``_untyped``), in order, in pieces of at most MAX_EPISODE; a turn of at most
    ``EPISODE_SENTENCES_APART`` sentences (none by default), a statement a sentence.
    ``own_questions`` off (an advisor asking the client): a question is kept only when it
    proposes a day."""
    said = [
        (part, sentence.listing)
        for sentence in sentences
        for part in _untyped(sentence, own_questions)
    ]
    parts = [part for part, _ in said]
    if len(parts) <= int(setting("EPISODE_SENTENCES_APART")):
        pieces = _statements(said)
    else:  # a long message (a text, a document): read in pieces
        pieces = [[]]
        for part in parts:
            if pieces[-1] and len(" ".join([*pieces[-1], part])) > MAX_EPISODE:
                pieces.append([])
            pieces[-1].append(part[: MAX_EPISODE * 2])
    out = []
    for piece in pieces:
        if not piece:
            continue
        content = " ".join(piece)
        folded = match_form(content)
        time = resolve_time(folded, observed_at)
        occurred = resolve_when(folded, observed_at, ahead=looks_ahead(folded, time))
        out.append(
            Candidate(
                content=content,
                kind="episodic",
                category="event",
                confidence=CONFIDENCE,
                importance=IMPORTANCE,
                # A plan or a deadline told as it is said is past once its day has gone by.
                expires_at=time.until if still_ahead(occurred, observed_at) else None,
                language=language,
                tags=tuple(sorted({e["type"] for e in spot_entities(content)})),
                occurred=occurred,
            )
        )
    return out
