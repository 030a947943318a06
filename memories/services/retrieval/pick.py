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
from memories.models import Memory
from memories.services.extraction.normalise import prose, stated_numbers
from memories.services.retrieval.statement import (
    COMPONENTS,
    REDUNDANCY_FLOOR,
    RESTATED,
    SCORED_COLUMNS,
)


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


# Words that mark a statement as changing what was said before: "it now averages 250 ms",
# "I moved the deadline to April 5", "ora è di 120 ms", "ahora son 120 ms".
UPDATE_CUES = re.compile(
    r"\b(?:now|new|newly|updated?|changed?|adjust(?:ed)?|moved?|switched|revised|increased|"
    r"decreased|reduced|raised|lowered|bumped|extended|postponed|pushed|instead|no longer|"
    r"anymore|down to|ora|adesso|nuov[oaie]|aggiornat[oaie]|"
    r"cambiat[oaie]|aumentat[oaie]|ridott[oaie]|spostat[oaie]|invece|ahora|nuev[oa]s?|"
    r"actualizad[oa]s?|cambiad[oa]s?|aumentad[oa]s?|reducid[oa]s?|movid[oa]s?|en lugar)\b",
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
    events: frozenset = frozenset()  # the events it rests on

    def hit(self, score: float, redundancy: float, *, outdated: bool = False) -> Hit:
        scores = {name: round(v, 4) for name, v in zip(COMPONENTS, self.components, strict=True)}
        scores["outdated"] = 1.0 if outdated else 0.0
        scores["redundancy"] = round(redundancy, 4)
        memory = Memory.from_db(connection.alias, SCORED_COLUMNS, self.columns)
        return Hit(memory, round(score, 4), scores)


# How much less relevant to the query a newer version may be and still go first: an update
# often says less of the subject than what it changes ("I moved the deadline to April 5"
# after "the sprint deadline for the prototype is April 1").
NEWER_MARGIN = 0.10


def newer_versions(candidates: list[Candidate]) -> dict:
    """Among live memories about the same thing, which has a newer version: for each
    candidate that the same speaker said again later with another value, the id of its
    newest such restatement among the candidates, if it answers the query about as well (its
    base score at most ``NEWER_MARGIN`` below). Another value: the two are close (cosine ≥
    ``RESTATED``), each states numbers, a date or an amount outside any listing pasted into
    it, not the same ones, and the newer says it changes something ("now", "moved to",
    "reduced", "ora", "ahora": ``UPDATE_CUES``): "the API averages 480 ms" → "the API now
    averages 250 ms". Closeness and other numbers are not enough: in a long conversation
    about one project most of what a person says of it is that close and full of numbers
    (versions, sizes, code), and none of it outdates the rest; and a newer value the query
    is not about must not take a place. Later: a later event, or, for events posted with one
    time (a session sent as one batch), stored later."""
    said = {c.id: c for c in candidates}
    read: dict = {}
    numbers: dict = {}

    def content(candidate: Candidate) -> str:
        """What it says, without the listings pasted into it (their numbers are code's)."""
        if candidate.id not in read:
            memory = Memory.from_db(connection.alias, SCORED_COLUMNS, candidate.columns)
            read[candidate.id] = prose(memory.content)
        return read[candidate.id]

    def stated(candidate: Candidate) -> frozenset:
        if candidate.id not in numbers:
            numbers[candidate.id] = frozenset(stated_numbers(content(candidate)))
        return numbers[candidate.id]

    def outdates(newer: Candidate, older: Candidate) -> bool:
        return (
            newer.base >= older.base - NEWER_MARGIN
            and newer.columns[_SPEAKER] == older.columns[_SPEAKER]
            and _said(newer) > _said(older)
            and bool(stated(older))
            and bool(stated(newer))
            and stated(newer) != stated(older)
            and bool(UPDATE_CUES.search(content(newer)))
        )

    found = {}
    for candidate in candidates:
        newer = [
            said[other]
            for other, cosine in candidate.close.items()
            if cosine >= RESTATED and other in said and outdates(said[other], candidate)
        ]
        if newer:
            found[candidate.id] = max(newer, key=_said).id
    return found


def select(candidates: list[Candidate], weights, k, *, beginning: bool = False) -> list[Hit]:
    """Greedy, like MMR: the best base score, less a penalty for repeating what the
    answer already holds (``redundancy``), and another (``same_event``) for resting only on
    events the answer already cites: another sentence of a message already in the answer
    makes way for another message. Duplicates are never returned. With
    ``SEARCH_NEWER_FIRST``, a memory that has a newer version among the candidates
    (``newer_versions``) comes after it: when the pick reaches the older, the newer goes in
    first; but not for a question about how things began (``beginning``), which asks for
    what was said first."""
    chosen: list[Hit] = []
    cited: set = set()
    remaining = list(candidates)  # best base score first
    penalty = weights.get("redundancy", 0.0)
    same_event = weights.get("same_event", 0.0)
    newer = newer_versions(candidates)  # flagged in each hit's scores ("outdated")
    reorder = bool(setting("SEARCH_NEWER_FIRST")) and not beginning

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
