"""Where a new statement stands against what the client's memory already holds.

For one extracted candidate: a duplicate (same text, same attribute and value, or cosine
≥ DEDUP_THRESHOLD without a changed number), a contradiction (same attribute with another
value or polarity, or a near-duplicate whose numbers changed), an extension (cosine ≥
EXTEND_THRESHOLD, same kind), or new. Contradictions follow the design's rule: against a
promoted memory always a conflict for review; otherwise the new one supersedes only on
superior evidence (newer, and explicit or clearly more confident), else a conflict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import connection, models
from django.db.models import Q

from memories.conf import cosine_setting, setting
from memories.models import (
    LIVE_STATUSES,
    EmbeddingSpace,
    Kind,
    Memory,
    vector_literal,
)
from memories.services.extraction.normalise import stated_numbers
from memories.services.topics.taxonomy import BY_NAME, Cardinality
from memories.services.write.changes import (
    adds_detail,
    adds_to,
    decision_changed,
    quantity_changed,
    same_decision,
    says_nothing_more,
    value_changed,
)
from memories.services.write.records import statement_subject

# An attribute whose value is a person rather than what is said of them.
_WHO_SOMEONE_IS = "relationship:"
# An attribute keyed by the head noun of a preference's object (``preference:funds``), not
# by a fixed vocabulary (``contact_channel``): the noun alone does not say it is the same thing.
_HEAD_NOUN = "preference:"


class Judgement(models.TextChoices):
    """Where a statement stands against memory; ingest turns it into an ``Evidence.Action``
    (a contradiction becomes ``updated`` or ``conflict``, see
    ``outcomes.resolve_contradiction``)."""

    DUPLICATE = "deduplicated", "Says what a live memory says"
    CONTRADICTION = "contradiction", "Contradicts a live memory"
    EXTENSION = "extended", "Adds detail to a live memory"
    NEW = "added", "New"


@dataclass(frozen=True)
class Verdict:
    action: Judgement
    memory: Memory | None = None  # the existing memory it is about
    similarity: float | None = None


class Neighbours:
    """The nearest live memories of every statement of one ingest call: what is stored,
    in one statement for the whole call (``load``), and what the call itself adds
    (``add``), compared in memory; memories the call supersedes stop counting (``drop``)."""

    LIMIT = 5

    def __init__(self, stored: dict, floor: float):
        self._stored = stored  # key → [(memory, cosine)], best first
        self._floor = floor
        self._added: dict = defaultdict(list)  # client id → [(memory, unit vector)]
        self._dropped: set = set()

    @classmethod
    def load(cls, *, space: EmbeddingSpace | None, wanted: list[tuple[object, object, list]]):
        """``wanted``: (key, client id, vector) of each statement to be judged."""
        floor = cosine_setting("EXTEND_CANDIDATE_FLOOR", space.model if space else None)
        if space is None or not wanted:
            return cls({}, floor)
        distance = space.distance_sql("q.v")
        # The vectors are cast once, in the unnest: cast in the distance, from text, each
        # statement's would be parsed again for every stored vector it is compared with
        # (~40 µs each, 30 times the comparison itself).
        sql = (
            "SELECT q.key, n.memory_id, n.similarity "  # noqa: S608 (model-built)
            f"FROM unnest(%s::int[], %s::uuid[], %s::{space.vector_type}[]) "
            "AS q(key, client_id, v) "
            f"CROSS JOIN LATERAL (SELECT e.memory_id, 1 - ({distance}) AS similarity "
            "FROM memories_memoryembedding e JOIN memories_memory m ON m.id = e.memory_id "
            "WHERE e.space_id = %s AND e.client_id = q.client_id AND m.status = ANY(%s) "
            f"ORDER BY {distance} LIMIT %s) n"
        )
        keys, clients, literals = zip(
            *((k, c, vector_literal(v)) for k, c, v in wanted), strict=True
        )
        with connection.cursor() as cursor:
            cursor.execute(
                sql,
                [
                    list(keys),
                    list(clients),
                    list(literals),
                    space.pk,
                    list(LIVE_STATUSES),
                    cls.LIMIT,
                ],
            )
            rows = [(key, memory_id, float(sim)) for key, memory_id, sim in cursor.fetchall()]
        close = [row for row in rows if row[2] >= floor]  # only those close enough are loaded
        memories = Memory.objects.defer("search_vector", "metadata", "context").in_bulk(
            {memory_id for _, memory_id, _ in close}
        )
        stored: dict = defaultdict(list)
        for key, memory_id, sim in close:
            if memory_id in memories:
                stored[key].append((memories[memory_id], sim))
        return cls(stored, floor)

    def of(self, key, client_id, vector) -> list[tuple[Memory, float]]:
        found = [(m, s) for m, s in self._stored.get(key, []) if m.pk not in self._dropped]
        if self._added.get(client_id):
            unit = _unit(vector)
            found += [
                (m, sim)
                for m, other in self._added[client_id]
                if m.pk not in self._dropped and (sim := float(unit @ other)) >= self._floor
            ]
        return sorted(found, key=lambda pair: pair[1], reverse=True)[: self.LIMIT]

    def add(self, memory: Memory, vector) -> None:
        self._added[memory.client_id].append((memory, _unit(vector)))

    def drop(self, memory: Memory) -> None:
        self._dropped.add(memory.pk)


def _unit(vector):
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


class LiveIndex:
    """The live memories a batch can collide with, by text hash and by attribute: loaded in
    one query once the batch holds its clients' locks, then kept current as the batch adds
    and supersedes, so each statement is judged without a query of its own."""

    def __init__(self, memories=()):
        self._by_hash: dict[tuple, list[Memory]] = defaultdict(list)
        self._by_attribute: dict[tuple, list[Memory]] = defaultdict(list)
        self._by_topic: dict[tuple, list[Memory]] = defaultdict(list)
        for memory in memories:
            self.add(memory)

    @classmethod
    def load(
        cls, *, client_ids, hashes, attributes, marriage: bool = False, topics=()
    ) -> LiveIndex:
        """``marriage``: a statement is about being married (a spouse named, or a marital
        status): the memories that say so either way are loaded too. ``topics``: those the
        call's statements may be newer versions of (``versions_by_topic``)."""
        matching = Q(content_hash__in=set(hashes))
        if attributes := set(attributes) - {""}:
            matching |= Q(attribute__in=attributes)
        if topics := set(topics) - {""}:
            matching |= Q(topic__in=topics)
        if marriage:
            matching |= Q(attribute=MARITAL_STATUS) | Q(tags__contains=[SPOUSE])
        return cls(
            Memory.objects.filter(client_id__in=set(client_ids), status__in=LIVE_STATUSES)
            .filter(matching)
            .defer("search_vector", "metadata", "context")
        )

    def add(self, memory: Memory) -> None:
        self._by_hash[(memory.client_id, memory.content_hash)].append(memory)
        if memory.attribute:
            self._by_attribute[(memory.client_id, memory.attribute)].append(memory)
        if memory.topic:
            self._by_topic[(memory.client_id, memory.topic)].append(memory)

    def discard(self, memory: Memory) -> None:
        for bucket in (
            self._by_hash[(memory.client_id, memory.content_hash)],
            self._by_attribute[(memory.client_id, memory.attribute)],
            self._by_topic[(memory.client_id, memory.topic)],
        ):
            if memory in bucket:
                bucket.remove(memory)

    def same_topic(self, client_id, topic: str) -> list[Memory]:
        """Live memories about ``topic``, newest first."""
        found = self._by_topic.get((client_id, topic), [])
        return sorted(found, key=lambda m: (m.observed_at, m.created_at), reverse=True)

    def exact(self, client_id, content_hash: str) -> list[Memory]:
        return self._by_hash.get((client_id, content_hash), [])

    def same_attribute(self, client_id, attribute: str) -> list[Memory]:
        found = self._by_attribute.get((client_id, attribute), [])
        return sorted(found, key=lambda m: m.observed_at, reverse=True)

    def saying_married(self, client_id, married: bool) -> list[Memory]:
        """Live memories whose marriage() is ``married``, newest first."""
        found = {
            m.pk: m
            for bucket in self._by_hash.values()
            for m in bucket
            if m.client_id == client_id
            and marriage(m.attribute, m.attribute_value, m.negated, m.tags) is married
        }
        return sorted(found.values(), key=lambda m: m.observed_at, reverse=True)


MARITAL_STATUS, SPOUSE = "marital_status", "spouse"
_UNMARRIED = frozenset({"single", "divorced", "widowed", "separated"})


def marriage(attribute: str, value: str, negated: bool, tags) -> bool | None:
    """Whether a statement says the client is married (True), is not (False), or neither:
    naming a wife or husband says so; so does a marital status, or its denial."""
    if SPOUSE in (tags or ()):
        return True
    if attribute != MARITAL_STATUS:
        return None
    if value == "married":
        return not negated
    return False if value in _UNMARRIED and not negated else None


def judge_episode(
    *,
    index: LiveIndex,
    client,
    content_hash: str,
    session_id,
    content: str = "",
    subject: str = "",
    topic: str = "",
    topic_probability: float = 0.0,
    source_ref: str = "",
) -> Verdict:
    """An episode is a record of something that happened: one like it on another day, or
    in another conversation, is another episode. Only the same words again in the same
    session are the same episode told twice. What happened may change what was true ("ci
    siamo trasferiti a Bussolengo" after "abitiamo in Borgo Trento"): a newer version of
    the same thing, by its topic (``_same_thing``)."""
    for memory in index.exact(client.pk, content_hash):
        if memory.kind == Kind.EPISODIC and memory.session_id == session_id:
            return Verdict(Judgement.DUPLICATE, memory, 1.0)
    latest = _same_thing(index, client.pk, topic, topic_probability, subject, source_ref)
    if latest is not None and value_changed(latest.content, content):
        return Verdict(Judgement.CONTRADICTION, latest)
    return Verdict(Judgement.NEW)


def judge(
    *,
    index: LiveIndex,
    client,
    content_hash: str,
    content: str,
    kind: str,
    attribute: str,
    value: str,
    negated: bool,
    neighbours: Callable[[], list[tuple[Memory, float]]],
    tags=(),
    subject: str = "",
    model: str | None = None,
    topic: str = "",
    topic_probability: float = 0.0,
    source_ref: str = "",
    speaker: str = "",
) -> Verdict:
    """``neighbours`` is called only when text and attribute did not already decide; their
    cosines are ``model``'s (None: the default model's). Only
    memories about the same ``subject`` are the same statement, or contradicted by it: in a
    conversation between people, one person's "I'm not married yet" says nothing of the
    other's husband, and two people who both love hiking are two memories."""

    def theirs(memories):
        return [m for m in memories if m.subject == subject]

    exact = theirs(index.exact(client.pk, content_hash))
    if exact:
        return Verdict(Judgement.DUPLICATE, min(exact, key=lambda m: m.created_at), 1.0)

    married = marriage(attribute, value, negated, tags)

    # Naming a wife or a husband says the speaker is married, whoever the rest is about.
    def married_one(memory_subject, memory_tags, memory_speaker) -> str:
        spouse = SPOUSE in (memory_tags or ())
        return statement_subject(memory_speaker, client) if spouse else memory_subject

    denied = [
        m
        for m in index.saying_married(client.pk, not married)
        if married_one(m.subject, m.tags, m.speaker) == married_one(subject, tags, speaker)
    ]
    if married is not None and denied:
        # "I'm not married" after "my wife Sarah…", and the other way round.
        return Verdict(Judgement.CONTRADICTION, denied[0])
    if attribute:
        same_attribute = theirs(index.same_attribute(client.pk, attribute))
        agreeing = [
            m for m in same_attribute if m.attribute_value == value and m.negated == negated
        ]
        if agreeing and attribute.startswith(_HEAD_NOUN):
            # Keyed by the head noun of what it prefers: "I prefer solving problems with
            # exact fractions" and "I prefer solving problems with stepwise methods" share
            # ``preference:problems`` and its value, and say two things. It says again what
            # is stored only if it names nothing the stored one does not; else the words
            # decide (below), not the key.
            agreeing = [m for m in agreeing if says_nothing_more(m.content, content)]
            if not agreeing:
                same_attribute = []
        if not agreeing and same_attribute:
            latest = same_attribute[0]
            if not (adds_to(content) and latest.negated == negated):
                return Verdict(Judgement.CONTRADICTION, latest)
            # "I also like healthcare stocks": one more, not another instead.
        if agreeing and not attribute.startswith(_WHO_SOMEONE_IS):
            return Verdict(Judgement.DUPLICATE, agreeing[0])
        # The same person in the same role: "my husband Marcus loves golf" and "my husband
        # Marcus works at GKN" share only whom they are about. The words decide below.

    latest = _same_thing(index, client.pk, topic, topic_probability, subject, source_ref)
    if latest is not None and value_changed(latest.content, content):
        return Verdict(Judgement.CONTRADICTION, latest)

    dedup = cosine_setting("DEDUP_THRESHOLD", model)
    extend = cosine_setting("EXTEND_THRESHOLD", model)
    for memory, similarity in neighbours():
        if memory.subject != subject:
            continue  # about someone else
        if attribute and memory.attribute and memory.attribute != attribute:
            continue  # about something else, however close the words
        if memory.kind == kind == Kind.DECISION and (
            decision_changed(memory.content, content)
            or (memory.negated != negated and same_decision(memory.content, content))
        ):
            # Before the duplicate test: "decided to sell the flat" and "decided to keep
            # the flat" embed as nearly the same sentence.
            return Verdict(Judgement.CONTRADICTION, memory, similarity)
        if similarity >= dedup:
            if stated_numbers(memory.content) != stated_numbers(content):
                return Verdict(Judgement.CONTRADICTION, memory, similarity)
            if memory.negated != negated and (memory.attribute or attribute):
                return Verdict(Judgement.CONTRADICTION, memory, similarity)
            return Verdict(Judgement.DUPLICATE, memory, similarity)
        if memory.kind == kind and quantity_changed(memory.content, content):
            # "I own two bakeries" → "I own three bakeries now": the same thing, counted anew
            return Verdict(Judgement.CONTRADICTION, memory, similarity)
        if memory.kind == kind and (similarity >= extend or adds_detail(memory.content, content)):
            return Verdict(Judgement.EXTENSION, memory, similarity)
    return Verdict(Judgement.NEW)


def versions_by_topic(topic: str, probability: float) -> bool:
    """Whether a statement read as about ``topic`` this surely can be a newer version of
    another by its topic alone: a topic a person has one value of, read surely
    (``TOPIC_SUPERSEDE``)."""
    return (
        bool(topic)
        and probability >= float(setting("TOPIC_SUPERSEDE"))
        and BY_NAME[topic].cardinality == Cardinality.ONE
    )


def _same_thing(
    index: LiveIndex, client_id, topic: str, probability: float, subject: str, source_ref: str
) -> Memory | None:
    """The latest live memory a statement is a newer version of by its topic: both read,
    surely (``TOPIC_SUPERSEDE``), as about a topic a person has one value of (where they
    live, how to reach them, their risk profile: ``Cardinality.ONE``), and about the same
    person. Two statements of one message are not versions of each other ("We moved to
    Turin. We live in the centre now.")."""
    if not versions_by_topic(topic, probability):
        return None
    floor = float(setting("TOPIC_SUPERSEDE"))
    for memory in index.same_topic(client_id, topic):
        if (
            memory.subject == subject
            and memory.topic_probability >= floor
            and not (source_ref and memory.source_ref == source_ref)
        ):
            return memory
    return None
