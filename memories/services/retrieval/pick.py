"""The pick: from the scored candidates of one search, the answer.

Greedy, like MMR: each step takes the best base score less what repeating the answer so far
costs (``redundancy``, ``same_event``); duplicates are never returned. A candidate the same
speaker said again later with another value is flagged ``outdated`` (``newer_versions``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from django.db import connection

from memories.conf import setting
from memories.models import Evidence, Memory
from memories.services.extraction.normalise import prose, stated_numbers, stated_quantities
from memories.services.retrieval.answers import SCORE
from memories.services.retrieval.statement import (
    COMPONENTS,
    REDUNDANCY_FLOOR,
    RESTATED,
    SCORED_COLUMNS,
    VERSION_FLOOR,
)
from memories.services.topics.taxonomy import BY_NAME, Cardinality
from memoryhub import replica


@dataclass
class Hit:
    memory: Memory
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    # Filled when the search is asked ``with_evidence``: see selectors_memory.evidence_for.
    evidence: list[dict] = field(default_factory=list)


ID, CONTENT_HASH = SCORED_COLUMNS.index("id"), SCORED_COLUMNS.index("content_hash")
_OBSERVED_AT, _SPEAKER = SCORED_COLUMNS.index("observed_at"), SCORED_COLUMNS.index("speaker")
_CREATED_AT = SCORED_COLUMNS.index("created_at")
_TOPICS, _SUBJECT = SCORED_COLUMNS.index("topics"), SCORED_COLUMNS.index("subject")


# Words that mark a statement as changing what was said before: "it now averages 250 ms",
# "I moved the deadline to April 5", "ora è di 120 ms", "ahora son 120 ms".
UPDATE_CUES = re.compile(
    r"\b(?:now|new|newly|updated?|changed?|adjust(?:ed)?|moved?|switched|revised|increased|"
    r"decreased|reduced|raised|lowered|bumped|extended|postponed|pushed|instead|no longer|"
    r"anymore|down to|ora|adesso|nuov[oaie]|aggiornat[oaie]|"
    r"cambiat[oaie]|aumentat[oaie]|ridott[oaie]|spostat[oaie]|invece|ahora|nuev[oa]s?|"
    r"actualizad[oa]s?|cambiad[oa]s?|aumentad[oa]s?|reducid[oa]s?|movid[oa]s?|en lugar|"
    r"improved|improving|rose|risen|grew|grown|dropped|fell|fallen|up to|went up|went down|"
    r"expanded|upped|boosted|cut|migliorat[oaie]|sces[oaie]|salit[oaie]|cresciut[oaie]|"
    r"calat[oaie]|estes[oaie]|mejorad[oa]s?|subid[oa]s?|bajad[oa]s?|crecid[oa]s?|"
    r"ampliad[oa]s?)\b",
    re.IGNORECASE,
)


def _said(candidate: Candidate) -> tuple:
    """When it was said, to order two statements: the time of its event, then, for events
    posted with one time (a session sent as one batch), the order they were stored in."""
    return candidate.columns[_OBSERVED_AT], candidate.columns[_CREATED_AT]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A scored row. Its Memory is built only if the pick chooses it."""

    id: object
    content_hash: str
    base: float
    components: tuple  # in COMPONENTS order
    close: dict  # id → cosine, of the candidates close to this one
    columns: tuple  # SCORED_COLUMNS
    said: dict = field(default_factory=dict)  # id → cosine of their messages, the same pairs
    events: frozenset = frozenset()  # the events it rests on
    scope: float = 0.0  # the share of its scope the question is in (``scope.py``)

    def hit(self, score: float, redundancy: float, *, outdated: bool = False) -> Hit:
        scores = {name: round(v, 4) for name, v in zip(COMPONENTS, self.components, strict=True)}
        scores["scope"] = round(self.scope, 4)
        scores["outdated"] = 1.0 if outdated else 0.0
        scores["redundancy"] = round(redundancy, 4)
        memory = Memory.from_db(connection.alias, SCORED_COLUMNS, self.columns)
        return Hit(memory, round(score, 4), scores)


# How much less relevant to the query a newer version may be and still go first: an update
# often says less of the subject than what it changes ("I moved the deadline to April 5"
# after "the sprint deadline for the prototype is April 1"), and a question about a value
# is often worded as its first statement was.
NEWER_MARGIN = 0.30


def newer_versions(candidates: list[Candidate], asked: frozenset[str] = frozenset()) -> dict:
    """Among live memories about the same thing, which has a newer version: for each
    candidate that the same speaker said again later with another value, the id of the
    restatement among the candidates said next (one that gives the value the question asks
    first), if it answers the query about as well (its base score at most ``NEWER_MARGIN``
    below). The two must rest on no event in common (two clauses of one message do not
    outdate each other).

    When the question says what it asks the value of (``asked``, ``answers.asked_measures``:
    "How many sketches…", "When is my review…"), that value decides where both messages
    give it: two close messages (cosine ≥ ``VERSION_FLOOR``) are versions of it when the
    newer gives it another value, whether or not it says so ("I've completed 3 sketches" →
    "I've completed 5 sketches by March 15"); and such a version goes before one the rules
    below find ("25 documents uploaded on April 9": "30 documents uploaded" before "I've now
    confirmed the upload on October 29", for "How many documents…"). Otherwise, or when the
    question does not say, the rules below.

    The newer's message must say it changes something ("now", "moved to", "increased to",
    "ora", "ahora": ``UPDATE_CUES``). Then either of:

    - *one quantity, another value*: the two memories, or the messages they were taken
      from, are close (cosine ≥ ``VERSION_FLOOR``), and the newer message gives something
      the older one measures a value it did not give it (``stated_quantities``: "3
      sketches" → "5 sketches", "$250 per night" → "$270", "March 23" → "March 25");
    - *the same thing said again*: closer still (cosine ≥ ``RESTATED``), and the two
      messages state numbers, a date or an amount, not the same ones.

    Messages, not memories, because a memory is often one clause of its message: "I'm
    trying to manage my monthly spending on nuts", said with "which has increased to
    $220"; listings pasted into a message are left out. Closeness and other numbers alone
    are not enough: in a long conversation about one project most of what a person says of
    it is that close and full of numbers (versions, sizes, code), and none of it outdates
    the rest; and a newer value the query is not about must not take a place. Later: a
    later event, or, for events posted with one time (a session sent as one batch), stored
    later."""
    said = {c.id: c for c in candidates}
    pairs = [
        (candidate, said[other])
        for candidate in candidates
        for other in candidate.close.keys() | candidate.said.keys()
        if other in said
        and _closeness(candidate, other) >= VERSION_FLOOR
        and _may_outdate(said[other], candidate)
    ]
    if not pairs:
        return {}
    messages = _messages({c.id: c for pair in pairs for c in pair})
    cued = {id_ for id_, text in messages.items() if UPDATE_CUES.search(text)}
    if not asked:
        # Only a newer that says it changes something is read for its values (and its older).
        pairs = [(older, newer) for older, newer in pairs if newer.id in cued]
    read = {c.id for pair in pairs for c in pair}
    numbers = {id_: frozenset(stated_numbers(messages[id_])) for id_ in read}
    measures = {id_: stated_quantities(messages[id_]) for id_ in read}

    def outdates(newer: Candidate, older: Candidate) -> bool:
        before, after = measures[older.id], measures[newer.id]
        if asked and (given := _of(before, asked) & _of(after, asked)):
            return any(after[unit] - before[unit] for unit in given)
        if newer.id not in cued:
            return False
        if any(after[unit] - before[unit] for unit in before.keys() & after.keys()):
            return True
        return (
            _closeness(older, newer.id) >= RESTATED
            and bool(numbers[older.id])
            and bool(numbers[newer.id])
            and numbers[newer.id] != numbers[older.id]
        )

    def goes_first(newer: Candidate, other: Candidate) -> bool:
        """Of two newer versions of one memory, whether ``newer`` goes first: one that
        gives the value asked before one that does not, then the one said next. The version
        that followed is the one that answers for the older; a later one is the newer's own
        version in turn ("5.5 hours of sleep" → "nearly 6" → "6.5 in November")."""
        asked_by = (bool(_of(measures[newer.id], asked)), bool(_of(measures[other.id], asked)))
        return asked_by[0] > asked_by[1] or (
            asked_by[0] == asked_by[1] and _said(newer) < _said(other)
        )

    found: dict = {}
    for older, newer in pairs:
        if outdates(newer, older) and (
            older.id not in found or goes_first(newer, said[found[older.id]])
        ):
            found[older.id] = newer.id
    return found


# A question reads as about a topic this surely, and a memory this surely, for the memory
# to be one of the topic's versions (``topic_versions``).
TOPIC_ASKED = 0.35
TOPIC_VERSION = 0.3


def topic_versions(candidates: list[Candidate], topics, about: str = "") -> dict:
    """Among the candidates about what the question is about, the newest goes first: for
    each older one, the id of the newest. The question's topic must be one a person has
    one value of (``Cardinality.ONE``: where they live, how to reach them, their risk
    profile) or one per thing (a loan's balance, a plan), read surely (``TOPIC_ASKED``), and
    each memory must read as about it too (``TOPIC_VERSION``), be about the person the
    question asks about (``about``: "" the client), and answer the query about as well as
    the older (``TOPIC_NEWER_MARGIN``): of those, the latest. "We live in Borgo Trento" and,
    a year later, "we moved to
    Bussolengo two months ago" are two values of one thing however few words they share."""
    if not topics:
        return {}
    topic, probability = topics[0]
    if probability < TOPIC_ASKED or BY_NAME[topic].cardinality == Cardinality.MANY:
        return {}
    about_it = [
        c
        for c in candidates
        if (c.columns[_TOPICS] or {}).get(topic, 0.0) >= TOPIC_VERSION
        and (c.columns[_SUBJECT] or "").casefold() == about.casefold()
    ]
    if len(about_it) < 2:
        return {}
    margin = float(setting("TOPIC_NEWER_MARGIN"))
    latest_first = sorted(about_it, key=_said, reverse=True)
    found = {}
    for older in about_it:
        newer = next(
            (
                c
                for c in latest_first
                if _said(c) > _said(older)
                and c.base >= older.base - margin
                and not c.events & older.events
            ),
            None,
        )
        if newer is not None:
            found[older.id] = newer.id
    return found


def _of(measures: dict, asked: frozenset[str]) -> set[str]:
    """The units among ``measures`` that the question asks the value of (any score out of
    a total when it asks a score)."""
    return {u for u in measures if u in asked or (SCORE in asked and u.startswith(SCORE))}


def _closeness(candidate: Candidate, other) -> float:
    """How close ``other`` is to ``candidate``: their vectors' cosine or their messages'."""
    return max(candidate.close.get(other, 0.0), candidate.said.get(other, 0.0))


def _may_outdate(newer: Candidate, older: Candidate) -> bool:
    """What can be read without the messages: the same speaker, said later, answering the
    query about as well, and resting on no event in common (two clauses of one message
    do not outdate each other)."""
    return (
        newer.base >= older.base - NEWER_MARGIN
        and newer.columns[_SPEAKER] == older.columns[_SPEAKER]
        and _said(newer) > _said(older)
        and not newer.events & older.events
    )


def _messages(candidates: dict) -> dict:
    """id → the prose of the messages each candidate was taken from or said again in (a
    consolidated memory, or one without a message: its own content): what it was said
    with."""
    told: dict = {}
    rows = (
        Evidence.objects.using(replica.read_alias())
        .filter(memory_id__in=candidates)
        .exclude(role=Evidence.Role.CONSOLIDATED)
        .order_by("created_at")
        .values_list("memory_id", "event__content")
    )
    for memory_id, content in rows:
        told.setdefault(memory_id, []).append(prose(content))
    for id_, candidate in candidates.items():
        if id_ not in told:
            memory = Memory.from_db(connection.alias, SCORED_COLUMNS, candidate.columns)
            told[id_] = [prose(memory.content)]
    return {id_: " ".join(parts) for id_, parts in told.items()}


def select(
    candidates: list[Candidate],
    weights,
    k,
    *,
    newer_first: bool = False,
    asked: frozenset[str] = frozenset(),
    topics=(),
    about: str = "",
) -> list[Hit]:
    """Greedy, like MMR: the best base score, less a penalty for repeating what the
    answer already holds (``redundancy``), and another (``same_event``) for resting only on
    events the answer already cites: another sentence of a message already in the answer
    makes way for another message. Duplicates are never returned. With
    ``SEARCH_NEWER_FIRST`` and ``newer_first`` (a question after one value as it stands,
    ``Expected.current``, and not about how things began), a memory that has a newer
    version among the candidates (``newer_versions``) comes after it: when the pick reaches
    the older, the newer goes in first. A list, a summary or a question of how things went
    reads the versions in their own order. ``asked``: what the question asks the value of
    (``newer_versions``). ``topics`` and ``about``: what the question is about, and whom
    (``topic_versions``): with ``newer_first``, the newest memory about it goes first, before
    what ``newer_versions`` finds."""
    chosen: list[Hit] = []
    cited: set = set()
    remaining = list(candidates)  # best base score first
    penalty = weights.get("redundancy", 0.0)
    same_event = weights.get("same_event", 0.0)
    newer = newer_versions(candidates, asked)  # flagged in each hit's scores ("outdated")
    newer |= topic_versions(candidates, topics, about)
    reorder = newer_first and bool(setting("SEARCH_NEWER_FIRST"))

    def scored(candidate: Candidate) -> tuple[float, float] | None:
        """(score, redundancy) against the answer so far; None for a duplicate."""
        redundancy = _redundancy(candidate, chosen)
        if redundancy is None:
            return None  # says what an answer already says
        score = candidate.base - penalty * redundancy
        if candidate.events and candidate.events <= cited:
            score -= same_event
        return score, redundancy

    def take(candidate: Candidate, score: float, redundancy: float) -> None:
        remaining.remove(candidate)
        cited.update(candidate.events)
        chosen.append(candidate.hit(score, redundancy, outdated=candidate.id in newer))

    while remaining and len(chosen) < k:
        best, best_score, best_redundancy = None, -math.inf, 0.0
        for candidate in remaining:
            if candidate.base <= best_score:
                break  # sorted by base, and no score exceeds its base: none from here wins
            if (found := scored(candidate)) is not None and found[0] > best_score:
                best, (best_score, best_redundancy) = candidate, found
        if best is None:
            break
        version = (
            next((c for c in remaining if c.id == newer.get(best.id)), None) if reorder else None
        )
        ahead = scored(version) if version is not None and len(chosen) + 1 < k else None
        if version is not None and ahead is not None:
            take(version, best_score, ahead[1])  # the newer first, at the older's rank
            if (found := scored(best)) is None:
                remaining.remove(best)  # the newer says it already
                continue
            best_score, best_redundancy = found
        take(best, best_score, best_redundancy)
    return chosen


DUPLICATE_COSINE = 0.97


def _redundancy(candidate: Candidate, chosen: list[Hit]) -> float | None:
    """How much ``candidate`` repeats one already chosen: 0 below cosine 0.8 rising to 1
    near 0.97; None for a duplicate (same text, or cosine ≥ 0.97), never returned."""
    worst = 0.0
    for hit in chosen:
        if hit.memory.content_hash == candidate.content_hash:
            return None
        worst = max(worst, candidate.close.get(hit.memory.pk, 0.0))
    if worst >= DUPLICATE_COSINE:
        return None
    return min(1.0, max(0.0, (worst - REDUNDANCY_FLOOR) / (DUPLICATE_COSINE - REDUNDANCY_FLOOR)))
