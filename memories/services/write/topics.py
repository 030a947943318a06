"""What each statement of a call is about, read once its vector is known: its topic
(``memories.services.topics``), whom it is about, the kind of memory that makes it, and
whether the message was small talk.

- **Small talk leaves nothing.** A short message (``SMALL_TALK_WORDS``) that reads as small
  talk (greetings, thanks, goodbyes, offers, compliments: ``TOPIC_SMALL_TALK_MESSAGE``)
  yields no memory, but for a statement in it that reads as something to remember
  ("Thanks! By the way, we moved to Turin.").
- **One meaning, one kind.** A statement whose topic is read surely enough
  (``TOPIC_TYPED``) is the kind of memory its topic makes (``Topic.category``), whatever its
  words and its language: "Llámame los miércoles" is a preference as "Please call me on
  Wednesdays" is. A plan whose day is ahead stays an event (not yet true), and what
  happened an episode ("we went hiking", "ci siamo trasferiti a Bussolengo": its topic is
  kept, and a change of residence said so still supersedes the old one); a goal or a
  constraint the cue tables read keeps its stance.
- **Whom.** A statement opening with another person ("mia sorella…", "my daughter…")
  is about them (``people.statement_about``): their facts never supersede the client's.

The vectors are the call's own where they are the classifier's model's; else the
statements are embedded with the local model for this alone.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from memories.conf import setting
from memories.models import Client, EmbeddingSpace, Kind
from memories.services.extraction.heuristic import Candidate
from memories.services.extraction.normalise import match_form
from memories.services.extraction.time_expressions import looks_back
from memories.services.topics import model as topics
from memories.services.topics.people import client_names, statement_about
from memories.services.topics.taxonomy import BY_NAME, OTHER, SMALL_TALK
from memories.services.write.prepare import Prepared

# Kinds a topic does not change: what a person decided, a procedure, tool output.
_KEPT_KINDS = frozenset({Kind.DECISION, Kind.PROCEDURAL, Kind.OPERATIONAL})
# Stances the cue tables read that a topic of facts does not undo ("I want to move to
# Turin" is a goal about residence, not a residence).
_STANCES = frozenset({"goal", "constraint"})


def topics_read(prepared: list[Prepared], space: EmbeddingSpace | None, clients) -> None:
    """Set each candidate's topic, subject and kind, and drop small talk, in place
    (``clients``: reference → Client, for whose names a statement may open with)."""
    statements = [(p, j) for p in prepared for j in range(len(p.candidates))]
    if not statements:
        return
    messages = [p for p in prepared if p.candidates]
    same_model = space is not None and space.model == topics.MODEL
    vectors = [
        p.vectors[j] if same_model else None for p, j in statements
    ]  # a restated statement has none: read it like the others
    texts = [p.candidates[j].content for p, j in statements]
    readings = _read(texts, vectors, input_type="document")
    message_vectors = [p.vector_of_message if same_model else None for p in messages]
    message_readings = dict(
        zip(
            map(id, messages),
            _read([p.content for p in messages], message_vectors, input_type="document"),
            strict=True,
        )
    )
    by_statement = dict(zip(((id(p), j) for p, j in statements), readings, strict=True))
    for p in messages:
        names = _client_names(clients.get(p.item.client))
        message = message_readings[id(p)]
        kept: list[tuple[Candidate, list[float] | None]] = []
        for j, (candidate, vector) in enumerate(zip(p.candidates, p.vectors, strict=True)):
            reading = by_statement[(id(p), j)]
            if p.asked and (len(p.candidates) == 1 or _words(candidate.content) <= _ELLIPTICAL):
                # An answer says what it is about with its question: "Por WhatsApp, que el
                # correo lo tengo saturado" after "¿Cómo prefiere que le contacte?".
                reading = max(reading, message, key=lambda r: r.probability)
            if _small_talk(reading, message, p.content):
                continue
            kept.append((_understood(candidate, reading, names), vector))
        p.candidates = [c for c, _ in kept]
        p.vectors = [v for _, v in kept]
        if not p.candidates:
            p.message_vector = None


def _read(texts: list[str], vectors: list, *, input_type: str) -> list[topics.Reading]:
    """Each text's reading: from its vector where there is one, else embedded locally."""
    readings: list[topics.Reading | None] = [None] * len(texts)
    known = [i for i, v in enumerate(vectors) if v is not None]
    if known:
        found = topics.read_vectors(np.asarray([vectors[i] for i in known], dtype=np.float32))
        for i, reading in zip(known, found, strict=True):
            readings[i] = reading
    missing = [i for i, r in enumerate(readings) if r is None]
    if missing:
        found = topics.read_texts([texts[i] for i in missing], input_type=input_type)
        for i, reading in zip(missing, found, strict=True):
            readings[i] = reading
    return [r or topics.NOTHING for r in readings]


def _small_talk(reading: topics.Reading, message: topics.Reading, said: str) -> bool:
    """Whether a statement is small talk: said in a short message (``SMALL_TALK_WORDS``)
    that reads as small talk, and not itself read as something to remember. A pleasantry
    is short: a longer message that reads as small talk is chat that tells something
    ("Wow, John! Congrats on the promotion!"), and its sentences are kept."""
    if _words(said) > int(setting("SMALL_TALK_WORDS")) or not message.is_(
        SMALL_TALK, float(setting("TOPIC_SMALL_TALK_MESSAGE"))
    ):
        return False
    return reading.topic in (SMALL_TALK, OTHER) or reading.probability < float(
        setting("TOPIC_KEEP")
    )


# An answer this short says what it is about only with the question it answers.
_ELLIPTICAL = 8


def _words(text: str) -> int:
    return len(_WORD.findall(text))


_WORD = re.compile(r"\w+")


def _understood(candidate: Candidate, reading: topics.Reading, names) -> Candidate:
    """The candidate with its topic, whom it is about and, for a topic read surely, the
    kind and category the topic makes."""
    topic = reading.topic if reading.topic not in (SMALL_TALK, OTHER) else ""
    understood = replace(
        candidate,
        topic=topic,
        topic_probability=reading.probability if topic else 0.0,
        topics=tuple((t, p) for t, p in reading.distribution if t not in (SMALL_TALK, OTHER)),
        about=statement_about(candidate.content, client_names=names),
    )
    if not topic or reading.probability < float(setting("TOPIC_TYPED")):
        return understood
    if candidate.kind in _KEPT_KINDS:
        return understood
    if candidate.expires_at is not None and candidate.category == "event":
        return understood  # a plan whose day is ahead: not yet true
    if candidate.kind == Kind.EPISODIC and looks_back(match_form(candidate.content)):
        return understood  # what happened ("we went hiking") is an episode of its topic
    category = BY_NAME[topic].category
    if candidate.category in _STANCES and category == "fact":
        category = candidate.category
    return replace(understood, kind=Kind.SEMANTIC, category=category)


def _client_names(client: Client | None) -> frozenset[str]:
    return client_names(client) if client is not None else frozenset()
