"""Batch dedup and fusion (seed 004 §8 job B): near-duplicates that the write path let in
become one canonical memory; the others turn ``merged`` with a ``merged_into`` relation to
it, and nothing is deleted.

Two live memories of a client fuse only when all of these hold:
- cosine ≥ MERGE_THRESHOLD (0.88) in an embedding space they share;
- metadata agree: same kind, category, attribute, value and polarity, and no unresolved
  ``conflicts_with`` between them;
- nothing in the words contradicts: the same numbers, the same negations, and the same
  fact-carrying words once emphasis and politeness are set aside ("I really prefer email"
  fuses with "I prefer email"; "golf" never with "tennis", "Emma" never with "Sofia",
  "12 March" never with "14 March", "I want" never with "I don't want");
- their words overlap: Jaccard ≥ FUSION_MIN_LEXICAL_OVERLAP.
Precision comes first: a missed merge costs a duplicate line, a wrong one hides a fact.

Because the metadata and word conditions demand equality, memories are bucketed by them
first and only memories sharing a bucket are compared: the cost grows with the number of
memories, not with its square, however large one client is.

Episodic memories are not fused: a repeated episode is a pattern for consolidation, not a
duplicate. Promoted memories are never merged away (they may absorb others). The
canonical one is the most trusted: promoted, then core tier, then the most evidence, the
most used, the oldest.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Kind,
    Memory,
    MemoryEmbedding,
    Relation,
    RelationType,
    Status,
)
from memories.services.extraction.wording import Wording, wording
from memories.services.jobs.claims import client_batches, clients_try_lock
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry
from memories.services.write.staleness import clients_mark_profile_stale

TIER_ORDER = {"core": 0, "recall": 1, "archival": 2}
_FIELDS = (
    "pk",
    "tenant_id",
    "client_id",
    "kind",
    "category",
    "attribute",
    "attribute_value",
    "negated",
    "content",
    "status",
    "tier",
    "evidence_count",
    "dup_count",
    "usage_count",
    "confidence",
    "importance",
    "last_seen_at",
    "last_accessed_at",
    "dedup_group",
    "created_at",
)


@dataclass
class _Statement:
    pk: uuid.UUID
    tenant_id: uuid.UUID
    client_id: uuid.UUID
    status: str
    tier: str
    evidence_count: int
    dup_count: int
    usage_count: int
    confidence: float
    importance: float
    last_seen_at: datetime
    last_accessed_at: datetime | None
    dedup_group: uuid.UUID | None
    created_at: datetime
    wording: Wording

    def preference(self) -> tuple:
        return (
            self.status != Status.PROMOTED,
            TIER_ORDER.get(self.tier, 3),
            -(self.evidence_count + self.dup_count),
            -self.usage_count,
            self.created_at,
            str(self.pk),
        )


def fusion_run(*, tenant_id=None, counts: JobCounts) -> None:
    """Every client with two or more live memories, a batch of clients per transaction."""
    live = Memory.objects.filter(status__in=LIVE_STATUSES).exclude(kind=Kind.EPISODIC)
    if tenant_id is not None:
        live = live.filter(tenant_id=tenant_id)
    for client_ids, _ in client_batches(live, at_least=2):
        _fuse_batch(client_ids, counts)


def _fuse_batch(client_ids: list, counts: JobCounts) -> None:
    with transaction.atomic():
        locked = clients_try_lock(client_ids)
        counts.add("clients_busy", len(client_ids) - len(locked))
        counts.add("clients", len(locked))
        if locked:
            fuse_clients(client_ids=locked, counts=counts)


def fuse_clients(*, client_ids, counts: JobCounts) -> None:
    """Fuse the live memories of ``client_ids`` (the caller holds their locks)."""
    threshold = float(setting("MERGE_THRESHOLD"))
    min_overlap = float(setting("FUSION_MIN_LEXICAL_OVERLAP"))
    buckets: dict[tuple, list[_Statement]] = defaultdict(list)
    rows = (
        Memory.objects.filter(client_id__in=client_ids, status__in=LIVE_STATUSES)
        .exclude(kind=Kind.EPISODIC)
        .values_list(*_FIELDS)
    )
    loaded = 0
    for row in rows:
        loaded += 1
        record = dict(zip(_FIELDS, row, strict=True))
        said = wording(record["content"])
        if not said.core:
            continue
        key = (
            record["client_id"],
            record["kind"],
            record["category"],
            record["attribute"],
            record["attribute_value"],
            record["negated"],
            said.negations,
            said.numbers,
            said.core,
        )
        buckets[key].append(_statement(record, said))
    shared = [bucket for bucket in buckets.values() if len(bucket) > 1]
    counts.add("memories", loaded)
    if not shared:
        return
    ids = [s.pk for bucket in shared for s in bucket]
    vectors = unit_vectors(ids)
    conflicts = {
        frozenset(pair)
        for pair in Relation.objects.filter(
            type=RelationType.CONFLICTS_WITH, source_id__in=ids, target_id__in=ids
        ).values_list("source_id", "target_id")
    }
    for bucket in shared:
        counts.add("candidate_groups")
        for canonical, duplicates in _stars(bucket, vectors, conflicts, threshold, min_overlap):
            _merge(canonical, duplicates)
            counts.add("merged", len(duplicates))
            counts.add("canonical", 1)


def _statement(record: dict, said: Wording) -> _Statement:
    return _Statement(
        **{
            name: record[name]
            for name in _Statement.__dataclass_fields__
            if name not in ("pk", "wording")
        },
        pk=record["pk"],
        wording=said,
    )


def unit_vectors(ids) -> dict:
    vectors: dict = defaultdict(dict)
    rows = MemoryEmbedding.objects.filter(memory_id__in=ids).values_list(
        "memory_id", "space_id", "vector"
    )
    for memory_id, space_id, vector in rows:
        array = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(array))
        vectors[memory_id][space_id] = array / norm if norm else array
    return vectors


def cosine(vectors: dict, first, second) -> float | None:
    """Cosine in the newest embedding space both have; None when they share none."""
    shared = set(vectors.get(first, ())) & set(vectors.get(second, ()))
    if not shared:
        return None
    space = max(shared)
    return float(vectors[first][space] @ vectors[second][space])


def _stars(bucket, vectors, conflicts, threshold: float, min_overlap: float):
    """Each duplicate joins a canonical memory it matches directly (no chains: A≈B and
    B≈C does not make A≈C)."""
    ordered = sorted(bucket, key=_Statement.preference)
    taken: set = set()
    for canonical in ordered:
        if canonical.pk in taken:
            continue
        taken.add(canonical.pk)
        duplicates = []
        for other in ordered:
            if other.pk in taken or other.status == Status.PROMOTED:
                continue
            if frozenset((canonical.pk, other.pk)) in conflicts:
                continue
            overlap = canonical.wording.overlap(other.wording)
            if overlap < min_overlap:
                continue
            similarity = cosine(vectors, canonical.pk, other.pk)
            if similarity is None or similarity < threshold:
                continue
            duplicates.append((other, similarity, overlap))
            taken.add(other.pk)
        if duplicates:
            yield canonical, duplicates


def _merge(canonical: _Statement, duplicates: list) -> None:
    now = timezone.now()
    group = canonical.dedup_group or uuid.uuid4()
    ids = [d.pk for d, _, _ in duplicates]
    Memory.objects.filter(pk__in=ids, status__in=LIVE_STATUSES).update(
        status=Status.MERGED,
        invalidated_at=now,
        status_reason=f"merged into {canonical.pk}",
        canonical_id=canonical.pk,
        dedup_group=group,
    )
    Relation.objects.bulk_create(
        [
            Relation(
                tenant_id=canonical.tenant_id,
                source_id=d.pk,
                target_id=canonical.pk,
                type=RelationType.MERGED_INTO,
                confidence=round(min(similarity, 1.0), 4),
                reason=f"fusion: cosine {similarity:.3f}, word overlap {overlap:.2f}",
            )
            for d, similarity, overlap in duplicates
        ],
        ignore_conflicts=True,
    )
    seen = [d.last_seen_at for d, _, _ in duplicates]
    accessed = [d.last_accessed_at for d, _, _ in duplicates if d.last_accessed_at]
    with connection.cursor() as cursor:
        # The duplicates' evidence now backs the canonical memory too (restated, no action:
        # replaying their events still answers what ingest did then).
        cursor.execute(
            "INSERT INTO memories_evidence (memory_id, event_id, role, action, created_at) "
            "SELECT %s, event_id, 'restated', '', %s FROM memories_evidence "
            "WHERE memory_id = ANY(%s) ON CONFLICT DO NOTHING",
            [canonical.pk, now, ids],
        )
        cursor.execute(
            "UPDATE memories_memory SET dup_count = dup_count + %s, "
            "usage_count = usage_count + %s, "
            "evidence_count = (SELECT count(*) FROM memories_evidence WHERE memory_id = %s), "
            "last_seen_at = GREATEST(last_seen_at, %s), "
            "last_accessed_at = GREATEST(last_accessed_at, %s), "
            "confidence = GREATEST(confidence, %s), importance = GREATEST(importance, %s), "
            "dedup_group = %s WHERE id = %s",
            [
                sum(d.dup_count + 1 for d, _, _ in duplicates),
                sum(d.usage_count for d, _, _ in duplicates),
                canonical.pk,
                max(seen),
                max(accessed) if accessed else None,
                max(d.confidence for d, _, _ in duplicates),
                max(d.importance for d, _, _ in duplicates),
                group,
                canonical.pk,
            ],
        )
    AuditEntry.objects.bulk_create(
        [
            audit_entry(
                tenant_id=canonical.tenant_id,
                actor_label="job:fusion",
                action="memory.merge",
                object_type="memory",
                object_id=d.pk,
                reason=f"cosine {similarity:.3f}, word overlap {overlap:.2f}",
                data={"into": str(canonical.pk), "group": str(group)},
            )
            for d, similarity, overlap in duplicates
        ]
    )
    clients_mark_profile_stale(client_ids=[canonical.client_id])
