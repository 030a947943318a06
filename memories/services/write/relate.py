"""Where a new statement stands against what the client's memory already holds.

For one extracted candidate: a duplicate (same text, same attribute and value, or cosine
≥ DEDUP_THRESHOLD without a changed number), a contradiction (same attribute with another
value or polarity, or a near-duplicate whose numbers changed), an extension (cosine ≥
EXTEND_THRESHOLD, same kind), or new. Contradictions follow the design's rule: against a
promoted memory always a conflict for review; otherwise the new one supersedes only on
superior evidence (newer, and explicit or clearly more confident), else a conflict.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import connection, models
from django.db.models import Q

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    ConflictPolicy,
    EmbeddingSpace,
    Evidence,
    Kind,
    Memory,
    Status,
    vector_literal,
)
from memories.services.extraction.normalise import COUNT_WORDS, NUMBER_WORDS, stated_numbers
from memories.services.extraction.vocabulary import FILLER_WORDS
from memories.text import fold

# An attribute whose value is a person rather than what is said of them.
_WHO_SOMEONE_IS = "relationship:"


class Judgement(models.TextChoices):
    """Where a statement stands against memory; ingest turns it into an ``Evidence.Action``
    (a contradiction becomes ``updated`` or ``conflict``, see ``resolve_contradiction``)."""

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
        floor = float(setting("EXTEND_CANDIDATE_FLOOR"))
        if space is None or not wanted:
            return cls({}, floor)
        distance = space.distance_sql("q.v")
        sql = (
            "SELECT q.key, n.memory_id, n.similarity "  # noqa: S608 (model-built)
            "FROM unnest(%s::int[], %s::uuid[], %s::text[]) AS q(key, client_id, v) "
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
        memories = Memory.objects.in_bulk({memory_id for _, memory_id, _ in close})
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
        for memory in memories:
            self.add(memory)

    @classmethod
    def load(cls, *, client_ids, hashes, attributes) -> LiveIndex:
        matching = Q(content_hash__in=set(hashes))
        if attributes := set(attributes) - {""}:
            matching |= Q(attribute__in=attributes)
        return cls(
            Memory.objects.filter(client_id__in=set(client_ids), status__in=LIVE_STATUSES)
            .filter(matching)
            .defer("search_vector", "metadata", "context")
        )

    def add(self, memory: Memory) -> None:
        self._by_hash[(memory.client_id, memory.content_hash)].append(memory)
        if memory.attribute:
            self._by_attribute[(memory.client_id, memory.attribute)].append(memory)

    def discard(self, memory: Memory) -> None:
        for bucket in (
            self._by_hash[(memory.client_id, memory.content_hash)],
            self._by_attribute[(memory.client_id, memory.attribute)],
        ):
            if memory in bucket:
                bucket.remove(memory)

    def exact(self, client_id, content_hash: str) -> list[Memory]:
        return self._by_hash.get((client_id, content_hash), [])

    def same_attribute(self, client_id, attribute: str) -> list[Memory]:
        found = self._by_attribute.get((client_id, attribute), [])
        return sorted(found, key=lambda m: m.observed_at, reverse=True)


def judge_episode(*, index: LiveIndex, client_id, content_hash: str, session_id) -> Verdict:
    """An episode is a record of something that happened: one like it on another day, or
    in another conversation, is another episode. Only the same words again in the same
    session are the same episode told twice."""
    for memory in index.exact(client_id, content_hash):
        if memory.kind == Kind.EPISODIC and memory.session_id == session_id:
            return Verdict(Judgement.DUPLICATE, memory, 1.0)
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
) -> Verdict:
    """``neighbours`` is called only when text and attribute did not already decide."""
    exact = index.exact(client.pk, content_hash)
    if exact:
        return Verdict(Judgement.DUPLICATE, min(exact, key=lambda m: m.created_at), 1.0)

    if attribute:
        same_attribute = index.same_attribute(client.pk, attribute)
        agreeing = [
            m for m in same_attribute if m.attribute_value == value and m.negated == negated
        ]
        if not agreeing and same_attribute:
            return Verdict(Judgement.CONTRADICTION, same_attribute[0])
        if agreeing and not attribute.startswith(_WHO_SOMEONE_IS):
            return Verdict(Judgement.DUPLICATE, agreeing[0])
        # The same person in the same role: "my husband Marcus loves golf" and "my husband
        # Marcus works at GKN" share only whom they are about. The words decide below.

    dedup, extend = float(setting("DEDUP_THRESHOLD")), float(setting("EXTEND_THRESHOLD"))
    for memory, similarity in neighbours():
        if attribute and memory.attribute and memory.attribute != attribute:
            continue  # about something else, however close the words
        if memory.kind == kind == Kind.DECISION and _decision_changed(memory.content, content):
            # Before the duplicate test: "decided to sell the flat" and "decided to keep
            # the flat" embed as nearly the same sentence.
            return Verdict(Judgement.CONTRADICTION, memory, similarity)
        if similarity >= dedup:
            if stated_numbers(memory.content) != stated_numbers(content):
                return Verdict(Judgement.CONTRADICTION, memory, similarity)
            if memory.negated != negated and (memory.attribute or attribute):
                return Verdict(Judgement.CONTRADICTION, memory, similarity)
            return Verdict(Judgement.DUPLICATE, memory, similarity)
        if memory.kind == kind and _quantity_changed(memory.content, content):
            # "I own two bakeries" → "I own three bakeries now": the same thing, counted anew
            return Verdict(Judgement.CONTRADICTION, memory, similarity)
        if memory.kind == kind and (similarity >= extend or _adds_detail(memory.content, content)):
            return Verdict(Judgement.EXTENSION, memory, similarity)
    return Verdict(Judgement.NEW)


_NOT_CONTENT = FILLER_WORDS | NUMBER_WORDS.keys()


def _quantities(text: str) -> tuple[dict[str, tuple], set[str]]:
    """Each number a statement states → the content words on either side of it ("own two
    bakeries", "invest £200 a month", "retire at 62"), and the statement's other content
    words. Words compare on their first five letters ("figlio"/"figli")."""
    tokens = re.findall(r"\d+(?:[.,]\d+)*|[^\W\d_]+", fold(text))
    numbers: dict[str, tuple] = {}
    for index, token in enumerate(tokens):
        if token[0].isdigit():
            number = token.replace(",", ".")
        elif token in COUNT_WORDS:
            number = str(NUMBER_WORDS[token])
        else:
            continue
        before = next((t[:5] for t in reversed(tokens[:index]) if _is_word(t)), None)
        after = next((t[:5] for t in tokens[index + 1 :] if _is_word(t)), None)
        numbers[number] = (before, after)
    return numbers, {t[:5] for t in tokens if _is_word(t)}


def _is_word(token: str) -> bool:
    return len(token) > 2 and not token[0].isdigit() and token not in _NOT_CONTENT


def _quantity_changed(old: str, new: str) -> bool:
    """The new statement gives another number for what the old one counted, in the same
    frame: "I own two bakeries in Belfast" → "I own three bakeries now". Not when each
    says something the other does not ("£200 a month for rent" / "… for the nursery")."""
    (old_numbers, old_words), (new_numbers, new_words) = _quantities(old), _quantities(new)
    gone = {old_numbers[n] for n in old_numbers.keys() - new_numbers.keys()}
    came = {new_numbers[n] for n in new_numbers.keys() - old_numbers.keys()}
    if not gone & came:
        return False
    return old_words <= new_words or new_words <= old_words


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", fold(text)) if len(w) > 2 and w not in FILLER_WORDS}


def _adds_detail(old: str, new: str) -> bool:
    """The new statement says all of the old one and more: "buy a house" → "buy a house in
    Bristol with a garden". Embeddings score such pairs low (≈0.6), words do not."""
    old_words, new_words = _content_words(old), _content_words(new)
    if len(old_words) < 2 or len(new_words - old_words) < 2:
        return False
    return len(old_words & new_words) >= 0.8 * len(old_words)


# What a decision does with its object, en/it/es, on the first five letters as every
# comparison here ("vendere"/"vende"): a reversal keeps the object, changes the action.
_ACTIONS = frozenset(
    word[:5]
    for words in (
        "sell keep buy hold cancel stop continue close open accept reject refuse take leave "
        "move stay rent let maintain withdraw transfer",
        "vendere tenere mantenere comprare cancellare annullare chiudere aprire accettare "
        "rifiutare prendere lasciare restare affittare ritirare trasferire",
        "vender mantener conservar comprar cancelar anular cerrar abrir aceptar rechazar "
        "tomar dejar quedar alquilar retirar transferir",
    )
    for word in words.split()
)
# Said when one choice replaces another; and words that only say it happened late.
_INSTEAD = frozenset({"instead", "invece", "cambio", "lugar"})
_LATE = frozenset({"after", "all", "alla", "fine", "final", "dopotutto", "finalmente"})


def _decision_words(text: str) -> set[str]:
    words = {t[:5] for t in re.findall(r"[^\W\d_]+", fold(text)) if _is_word(t)}
    return words - {w[:5] for w in _INSTEAD | _LATE}


def _decision_changed(old: str, new: str) -> bool:
    """The later decision about the same thing decides otherwise: another action on it
    ("decided to sell the buy-to-let flat in Salford" → "decided to keep the Salford flat
    after all"), or, said as a replacement, another choice in its place ("take the Danske
    Bank loan for the shop" → "take the Ulster Bank loan instead"). Not two decisions
    about two things ("sell the car" / "sell the boat")."""
    old_words, new_words = _decision_words(old), _decision_words(new)
    old_actions, new_actions = old_words & _ACTIONS, new_words & _ACTIONS
    if old_actions and new_actions and old_actions != new_actions:
        old_rest, new_rest = old_words - _ACTIONS, new_words - _ACTIONS
        named = min(len(old_rest), len(new_rest))  # the decision word and the object, at least
        return named >= 2 and (old_rest <= new_rest or new_rest <= old_rest)
    if set(re.findall(r"\w+", fold(new))) & _INSTEAD:
        shared = old_words & new_words
        return len(shared) >= 2 and len(shared) >= 0.6 * len(new_words)
    return False


def resolve_contradiction(
    *, old: Memory, confidence: float, observed_at, policy: str
) -> Evidence.Action:
    """``updated`` when the new statement may supersede ``old`` on its own, else ``conflict``."""
    if old.status == Status.PROMOTED or policy == ConflictPolicy.ALWAYS_REVIEW:
        return Evidence.Action.CONFLICT
    newer = observed_at >= old.observed_at
    explicit = confidence >= float(setting("SUPERSEDE_MIN_CONFIDENCE"))
    more_confident = confidence >= old.confidence + float(setting("SUPERSEDE_CONFIDENCE_MARGIN"))
    if newer and (explicit or more_confident):
        return Evidence.Action.UPDATED
    return Evidence.Action.CONFLICT
