"""The episodic layer (seed 004 §3.1): what an event tells, kept whatever the cue tables
recognise.

The cue tables (``heuristic``) turn what they recognise into typed memories; every other
informative sentence of the event is kept, in order, as one episodic memory (or a few,
for a long event): the raw record of what happened, and the base for consolidation. So
nothing said is lost, and nothing is kept twice.

A sentence is informative when, once the greeting or filler before it is set aside, it
says something: a word that is neither grammar, nor a reaction ("great", "wow", "me
too"), nor a formula (thanks, see you, long time no see). A question says nothing of its
own; the statements before it in the sentence still count ("I moved last month, can you
update my address?"). When the event says when the thing happens or happened ("yesterday",
"la settimana scorsa", "hace dos meses", "next Friday", a date), the episode records that
day.
"""

from __future__ import annotations

import re

from memories.services.extraction import patterns as cues
from memories.services.extraction.clauses import STOPWORDS
from memories.services.extraction.heuristic import Candidate, Sentence
from memories.services.extraction.normalise import match_form, spot_entities, words
from memories.services.extraction.time_expressions import (
    looks_ahead,
    resolve_time,
    resolve_when,
)
from memories.services.extraction.vocabulary import REACTION_WORDS, SENTIMENT_WORDS
from memories.text import clean

_VOCATIVE = re.compile(r",\s*(?-i:[A-ZÀ-Þ][\w'-]*)(?:\s(?-i:[A-ZÀ-Þ][\w'-]*))?\s*([!.…]*)$")
# "What a great idea!", "How lovely!", "¡Qué bien!", "Che bello!": exclamations.
_EXCLAMATION = re.compile(r"^\W*(?:what an?|how|que|qué|che|quanto|cuanto)\s(?:\w+\s?){0,3}\W*$")

# Longer than this, an event's episode is cut at a sentence boundary into several.
MAX_EPISODE = 600
CONFIDENCE = 0.8
IMPORTANCE = 0.4


def informative_part(sentence: str) -> str:
    """What the sentence tells, without the greeting or filler before it; "" if nothing."""
    text = cues.DISCOURSE.sub("", sentence.strip()).strip()
    # A name said to the listener at the end ("That's so cool, Caroline!") tells nothing.
    text = _VOCATIVE.sub("", text)
    if "?" in text or "¿" in text:
        parts = cues.QUESTION_PARTS.split(text)[:-1]
        kept = [
            part.strip()
            for part in parts
            if part.strip() and "?" not in part and not cues.QUESTION_START.match(match_form(part))
        ]
        text = ", ".join(kept)
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
    return clean(text) if set(telling) - SENTIMENT_WORDS else ""


def episodes(sentences: list[Sentence], *, language: str, observed_at) -> list[Candidate]:
    """The episodic memories of an event: its informative sentences that no typed
    candidate came from, joined in order (cut into pieces of at most MAX_EPISODE)."""
    pieces: list[list[str]] = [[]]
    for sentence in sentences:
        if sentence.candidates:
            continue
        part = informative_part(sentence.text)
        if not part:
            continue
        if pieces[-1] and len(" ".join([*pieces[-1], part])) > MAX_EPISODE:
            pieces.append([])
        pieces[-1].append(part[: MAX_EPISODE * 2])
    out = []
    for piece in pieces:
        if not piece:
            continue
        content = " ".join(piece)
        folded = match_form(content)
        out.append(
            Candidate(
                content=content,
                kind="episodic",
                category="event",
                confidence=CONFIDENCE,
                importance=IMPORTANCE,
                expires_at=None,
                language=language,
                tags=tuple(sorted({e["type"] for e in spot_entities(content)})),
                occurred=resolve_when(
                    folded,
                    observed_at,
                    ahead=looks_ahead(folded, resolve_time(folded, observed_at)),
                ),
            )
        )
    return out
