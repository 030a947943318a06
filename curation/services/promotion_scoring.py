"""Promotion scoring (seed 004 §5.3, §9): each live fact, procedure, decision or principle
gets a ``promotion_score``; a memory at or above CANDIDATE_THRESHOLD (0.65) becomes a
``candidate`` with an open promotion review item, marked recommended at or above
PROMOTE_THRESHOLD (0.80). A tenant whose policy auto-approves above a score has those
approved at once, through ``promotion_decide`` like a supervisor's decision.

    score = 0.30·repetition + 0.20·usage + 0.20·confidence + 0.15·evidence
          + 0.10·stability + 0.05·impact                    (weights: PROMOTION_WEIGHTS)

repetition: restatements, full at PROMOTION_REPETITION_FULL; usage: reads, full at
PROMOTION_USAGE_FULL; evidence: distinct sessions behind it, full at
PROMOTION_SOURCES_FULL; stability: days known without being superseded, full at
PROMOTION_STABILITY_DAYS; impact: importance.

Not proposed (seed 004 §9.2): a memory without evidence, one that contradicts a promoted
memory, one in an unresolved conflict, one with an open promotion item, and one rejected
less than PROMOTION_REJECT_COOLDOWN_DAYS ago unless its evidence grew since. Candidates
written by the consolidation jobs (principles, recurring episodes) are proposed whatever
their score: that is what they were written for. Items whose memory stopped being live
become obsolete.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.template.defaultfilters import floatformat
from django.utils import timezone

from curation.models import ReviewItem
from curation.services.promotion import promotion_decide
from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Kind,
    Memory,
    Relation,
    RelationType,
    SourceKind,
    Status,
    Tenant,
)
from memories.services.jobs.claims import batches, claimed_in_batches
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry

PROMOTABLE_KINDS = (
    Kind.SEMANTIC,
    Kind.PROCEDURAL,
    Kind.DECISION,
    Kind.PRINCIPLE,
    Kind.CLAIM,
    Kind.ARTIFACT,
)
_FIELDS = (
    "pk",
    "tenant_id",
    "client_id",
    "status",
    "source_kind",
    "title",
    "dup_count",
    "usage_count",
    "confidence",
    "importance",
    "observed_at",
    "evidence_count",
    "attribute",
    "attribute_value",
    "negated",
    "promotion_score",
)


def promotion_components(
    *,
    restated: int,
    reads: int,
    confidence: float,
    sources: int,
    age_days: float,
    importance: float,
) -> dict[str, float]:
    def full_at(value: float, name: str) -> float:
        return round(min(1.0, max(0.0, value / float(setting(name)))), 4)

    return {
        "repetition": full_at(restated, "PROMOTION_REPETITION_FULL"),
        "usage": full_at(reads, "PROMOTION_USAGE_FULL"),
        "confidence": round(confidence, 4),
        "evidence": full_at(sources, "PROMOTION_SOURCES_FULL"),
        "stability": full_at(age_days, "PROMOTION_STABILITY_DAYS"),
        "impact": round(importance, 4),
    }


def promotion_score(components: dict[str, float]) -> float:
    weights = setting("PROMOTION_WEIGHTS")
    return round(sum(weights.get(name, 0.0) * value for name, value in components.items()), 4)


def promotions_score(*, tenant_id=None, counts: JobCounts) -> None:
    now = timezone.now()
    counts.add("obsoleted", _obsolete_items(tenant_id))
    scored = Memory.objects.filter(
        status__in=(Status.ACTIVE, Status.CANDIDATE), kind__in=PROMOTABLE_KINDS
    )
    if tenant_id is not None:
        scored = scored.filter(tenant_id=tenant_id)
    # The ids first, then a batch of them at a time: one scan of the table in all, where
    # "the next batch after this id" would scan and sort the rest again for every batch.
    ids = list(scored.order_by("pk").values_list("pk", flat=True))
    for chunk in batches(ids, int(setting("JOB_BATCH_SIZE"))):
        with transaction.atomic():
            rows = list(
                scored.filter(pk__in=chunk)
                .select_for_update(skip_locked=True)
                .values_list(*_FIELDS)
            )
            if rows:
                _score_batch([dict(zip(_FIELDS, row, strict=True)) for row in rows], now, counts)


def _score_batch(rows: list[dict], now, counts: JobCounts) -> None:
    ids = [row["pk"] for row in rows]
    sources = _sources(ids)
    changed = []
    for row in rows:
        row["components"] = promotion_components(
            restated=row["dup_count"],
            reads=row["usage_count"],
            confidence=row["confidence"],
            sources=sources.get(row["pk"], 0),
            age_days=max(0.0, (now - row["observed_at"]).total_seconds() / 86400),
            importance=row["importance"],
        )
        row["sources"] = sources.get(row["pk"], 0)
        row["score"] = promotion_score(row["components"])
        if row["score"] != row["promotion_score"]:
            changed.append(row)
    if changed:
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE memories_memory m SET promotion_score = u.score "
                "FROM unnest(%s::uuid[], %s::float8[]) AS u(id, score) WHERE m.id = u.id",
                [[r["pk"] for r in changed], [r["score"] for r in changed]],
            )
    counts.add("scored", len(rows))
    counts.add("score_changed", len(changed))
    threshold = float(setting("CANDIDATE_THRESHOLD"))
    wanted = [
        row
        for row in rows
        if row["evidence_count"] > 0
        and (
            row["score"] >= threshold
            or (row["status"] == Status.CANDIDATE and row["source_kind"] == SourceKind.JOB)
        )
    ]
    if not wanted:
        return
    blocked = _blocked(wanted, now)
    counts.add("not_proposed", len(blocked))
    proposals = [row for row in wanted if row["pk"] not in blocked]
    items = _open_items(proposals, now)
    counts.add("proposed", len(items))
    counts.add("recommended", sum(1 for item in items if item.recommended))
    _auto_approve(items, counts)


def _sources(ids: list) -> dict:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT ev.memory_id, count(DISTINCT COALESCE(e.session_id, e.id)) "
            "FROM memories_evidence ev JOIN memories_event e ON e.id = ev.event_id "
            "WHERE ev.memory_id = ANY(%s) GROUP BY ev.memory_id",
            [ids],
        )
        return dict(cursor.fetchall())


def _blocked(rows: list[dict], now) -> dict:
    """Memories not to propose now, with why."""
    ids = [row["pk"] for row in rows]
    blocked: dict = {}
    open_items = ReviewItem.objects.filter(
        type=ReviewItem.Type.PROMOTION, state=ReviewItem.State.OPEN, memory_id__in=ids
    ).values_list("memory_id", flat=True)
    for memory_id in open_items:
        blocked[memory_id] = "already proposed"
    cooldown = now - timedelta(days=float(setting("PROMOTION_REJECT_COOLDOWN_DAYS")))
    evidence = {row["pk"]: row["evidence_count"] for row in rows}
    rejected = ReviewItem.objects.filter(
        type=ReviewItem.Type.PROMOTION,
        decision=ReviewItem.Decision.REJECT,
        memory_id__in=ids,
        decided_at__gte=cooldown,
    ).values_list("memory_id", "score_components")
    for memory_id, components in rejected:
        if evidence[memory_id] <= int((components or {}).get("evidence_count", 0)):
            blocked.setdefault(memory_id, "rejected recently")
    conflicted = Relation.objects.filter(type=RelationType.CONFLICTS_WITH).filter(
        Q(source_id__in=ids, target__status__in=LIVE_STATUSES)
        | Q(target_id__in=ids, source__status__in=LIVE_STATUSES)
    )
    for source_id, target_id in conflicted.values_list("source_id", "target_id"):
        for memory_id in (source_id, target_id):
            if memory_id in evidence:
                blocked.setdefault(memory_id, "in an unresolved conflict")
    about = [row for row in rows if row["attribute"]]
    if about:
        canonical = defaultdict(list)
        for client_id, attribute, value, negated in Memory.objects.filter(
            status=Status.PROMOTED,
            client_id__in={row["client_id"] for row in about},
            attribute__in={row["attribute"] for row in about},
        ).values_list("client_id", "attribute", "attribute_value", "negated"):
            canonical[(client_id, attribute)].append((value, negated))
        for row in about:
            stated = (row["attribute_value"], row["negated"])
            if any(c != stated for c in canonical[(row["client_id"], row["attribute"])]):
                blocked.setdefault(row["pk"], "contradicts a promoted memory")
    return blocked


def _open_items(rows: list[dict], now) -> list[ReviewItem]:
    recommend_at = float(setting("PROMOTE_THRESHOLD"))
    items = [
        ReviewItem(
            tenant_id=row["tenant_id"],
            client_id=row["client_id"],
            type=ReviewItem.Type.PROMOTION,
            memory_id=row["pk"],
            score=row["score"],
            score_components={
                **row["components"],
                "evidence_count": row["evidence_count"],
                "restated": row["dup_count"],
                "reads": row["usage_count"],
                "sessions": row["sources"],
            },
            recommended=row["score"] >= recommend_at,
            summary=_argument(row, now, recommend_at)[:500],
        )
        for row in rows
    ]
    ReviewItem.objects.bulk_create(items)
    Memory.objects.filter(pk__in=[row["pk"] for row in rows], status=Status.ACTIVE).update(
        status=Status.CANDIDATE, status_reason="proposed for promotion"
    )
    AuditEntry.objects.bulk_create(
        [
            audit_entry(
                tenant_id=item.tenant_id,
                actor_label="job:score_promotions",
                action="review.open",
                object_type="review_item",
                object_id=item.pk,
                data={"type": "promotion", "memory": str(item.memory_id), "score": item.score},
            )
            for item in items
        ]
    )
    return items


def _argument(row: dict, now, recommend_at: float) -> str:
    """Why this memory deserves promotion, in the numbers a supervisor checks."""
    days = max(0, int((now - row["observed_at"]).total_seconds() // 86400))
    origin = f"{row['title']}. " if row["source_kind"] == SourceKind.JOB and row["title"] else ""
    verdict = " Recommended." if row["score"] >= recommend_at else ""
    return (
        f"{origin}Score {_two(row['score'])}: restated {row['dup_count']}×, "
        f"read {row['usage_count']}×, confidence {_two(row['confidence'])}, evidence from "
        f"{row['sources']} session(s), known for {days} day(s), importance "
        f"{_two(row['importance'])}.{verdict}"
    )


def _two(value: float) -> str:
    """Two decimals rounded as the pages round them (``floatformat``: half up on the
    decimal written, where ``:.2f`` rounds the binary value, 0.705 to 0.70)."""
    return floatformat(value, 2)


def _auto_approve(items: list[ReviewItem], counts: JobCounts) -> None:
    policies = dict(
        Tenant.objects.filter(
            pk__in={item.tenant_id for item in items}, auto_approve_promotions_above__isnull=False
        ).values_list("pk", "auto_approve_promotions_above")
    )
    for item in items:
        above = policies.get(item.tenant_id)
        assert item.score is not None  # _open_items scored every item
        if above is not None and item.score >= above:
            promotion_decide(
                item=item,
                approve=True,
                actor=None,
                reason=f"score {item.score:.2f} ≥ the tenant's auto-approve threshold {above:.2f}",
            )
            counts.add("auto_approved")


def _obsolete_items(tenant_id) -> int:
    """Open promotion items whose memory is no longer a live candidate for promotion."""
    stale = ReviewItem.objects.filter(
        type=ReviewItem.Type.PROMOTION, state=ReviewItem.State.OPEN
    ).exclude(memory__status__in=(Status.ACTIVE, Status.CANDIDATE))
    if tenant_id is not None:
        stale = stale.filter(tenant_id=tenant_id)

    def claim() -> list:
        return list(
            stale.select_for_update(skip_locked=True, of=("self",)).values_list(
                "pk", "tenant_id", "memory_id", "memory__status"
            )[:500]
        )

    def work(batch: list) -> None:
        ReviewItem.objects.filter(pk__in=[pk for pk, *_ in batch]).update(
            state=ReviewItem.State.OBSOLETE
        )
        AuditEntry.objects.bulk_create(
            [
                audit_entry(
                    tenant_id=tenant_id,
                    actor_label="job:score_promotions",
                    action="review.obsolete",
                    object_type="review_item",
                    object_id=pk,
                    data={"memory": str(memory_id), "memory_status": status},
                )
                for pk, tenant_id, memory_id, status in batch
            ]
        )

    return claimed_in_batches(claim, work)
