"""Forgetting that loses nothing worth keeping: the TTL sweep (seed 004 §8 job A) and
decay (seed 003 phase 2, reconciled with seed 000's tiers).

Only what is meant to pass leaves the live set: operational context past its TTL or its
``expires_at`` becomes ``expired`` (a plan whose day has gone by is past, not gone;
explicit forgets, supersedes and merges are their own doors). Decay lowers a memory's
freshness as it goes unread and unrestated, and moves a memory that stayed below the floor
to the ``archival`` tier, which is kept for ever and still searched: a client's children,
employer or risk profile are not deleted for going unread. Nothing is deleted: rows,
evidence and relations stay. Each rule claims its rows in batches with ``FOR UPDATE SKIP
LOCKED`` and only rows still matching are touched, so a second run, or a second worker,
finds nothing left to do.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    JobRun,
    Kind,
    Memory,
    Status,
    Tier,
)
from memories.services.jobs.claims import batches, claimed_in_batches
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry
from memories.services.write.staleness import clients_mark_profile_stale, summaries_retire


def ttl_sweep(*, tenant_id=None, counts: JobCounts) -> None:
    now = timezone.now()
    live = Memory.objects.filter(status__in=LIVE_STATUSES)
    if tenant_id is not None:
        live = live.filter(tenant_id=tenant_id)
    rules = [
        # Only operational context leaves by time: a plan whose day has gone by is past,
        # not gone (Memory.is_past).
        (
            "past_expires_at",
            live.filter(kind=Kind.OPERATIONAL, expires_at__lte=now),
            "expired: past its expiry",
        ),
        (
            "operational",
            live.filter(
                kind=Kind.OPERATIONAL,
                expires_at__isnull=True,
                last_seen_at__lt=now - timedelta(hours=float(setting("OPERATIONAL_TTL_HOURS"))),
            ).exclude(status=Status.PROMOTED),
            "expired: operational context older than its TTL",
        ),
    ]
    for name, queryset, reason in rules:
        counts.add(
            name, _invalidate(queryset, status=Status.EXPIRED, reason=reason, now=now, job="ttl")
        )
    keep = timedelta(days=float(setting("JOB_RUN_KEEP_DAYS")))
    runs = JobRun.objects.filter(started_at__lt=now - keep).exclude(outcome=JobRun.Outcome.RUNNING)
    if tenant_id is not None:
        runs = runs.filter(tenant_id=tenant_id)
    counts.add("job_runs_pruned", runs.delete()[0])


def decay_sweep(*, tenant_id=None, counts: JobCounts) -> None:
    """Freshness = 1 / (1 + idle days × rate); a recall memory whose confidence × freshness
    has been below the floor for DECAY_ARCHIVE_AFTER_DAYS moves to the archival tier (its
    status stays). Idle means neither read nor restated; pinned tiers are left alone.

    The score only falls with idle time, so the day it crossed the floor follows from the
    last activity: confidence / (1 + d × rate) < floor ⇔ d > (confidence / floor − 1) / rate.
    """
    now = timezone.now()
    rate, floor = float(setting("DECAY_RATE_PER_DAY")), float(setting("DECAY_SCORE_FLOOR"))
    after = float(setting("DECAY_ARCHIVE_AFTER_DAYS"))
    counts.add("freshness_updated", _refresh_freshness(tenant_id, now, rate))

    below_long_enough = RawSQL(
        "EXTRACT(EPOCH FROM (%s - GREATEST(last_accessed_at, last_seen_at))) / 86400.0 "
        "> (confidence / %s - 1) / %s + %s",
        [now, floor, rate, after],
        output_field=BooleanField(),
    )
    cold = (
        Memory.objects.filter(status=Status.ACTIVE, tier=Tier.RECALL, tier_pinned=False)
        .alias(cold=below_long_enough)
        .filter(cold=True)
    )
    if tenant_id is not None:
        cold = cold.filter(tenant_id=tenant_id)
    reason = f"archived: decay score below {floor:g} for more than {after:g} days"
    counts.add("archived", _archive(cold, reason=reason))


def _refresh_freshness(tenant_id, now, rate: float) -> int:
    """One UPDATE per batch of rows, only where the value moved by at least 0.005."""
    live = Memory.objects.filter(status__in=LIVE_STATUSES)
    if tenant_id is not None:
        live = live.filter(tenant_id=tenant_id)
    ids = list(live.order_by("pk").values_list("pk", flat=True))
    updated = 0
    for chunk in batches(ids, int(setting("JOB_BATCH_SIZE")) * 5):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "UPDATE memories_memory SET freshness = round(f.fresh::numeric, 4) FROM ("
                "SELECT id, 1.0 / (1.0 + %s * GREATEST(0, EXTRACT(EPOCH FROM "
                "(%s - GREATEST(last_accessed_at, last_seen_at))) / 86400.0)) AS fresh "
                "FROM memories_memory WHERE id = ANY(%s) AND status = ANY(%s)) f "
                "WHERE memories_memory.id = f.id AND abs(freshness - f.fresh) >= 0.005",
                [rate, now, chunk, list(LIVE_STATUSES)],
            )
            updated += cursor.rowcount
    return updated


def _archive(queryset, *, reason: str) -> int:
    """Claim matching rows batch by batch, move them to archival, audit each."""
    size = int(setting("JOB_BATCH_SIZE"))

    def claim() -> list:
        return list(
            queryset.select_for_update(skip_locked=True, of=("self",))
            .order_by()
            .values_list("pk", "tenant_id", "client_id")[:size]
        )

    def work(rows: list) -> None:
        Memory.objects.filter(pk__in=[pk for pk, _, _ in rows], tier=Tier.RECALL).update(
            tier=Tier.ARCHIVAL
        )
        AuditEntry.objects.bulk_create(
            [
                audit_entry(
                    tenant_id=tenant_id,
                    actor_label="job:decay",
                    action="memory.set_tier",
                    object_type="memory",
                    object_id=pk,
                    reason=reason,
                    data={"from": Tier.RECALL, "to": Tier.ARCHIVAL},
                )
                for pk, tenant_id, _ in rows
            ]
        )
        clients_mark_profile_stale(client_ids={client for _, _, client in rows})

    return claimed_in_batches(claim, work)


def _invalidate(queryset, *, status: str, reason: str, now, job: str) -> int:
    """Claim matching rows batch by batch, set their status, audit each; returns how many."""
    size = int(setting("JOB_BATCH_SIZE"))

    def claim() -> list:
        return list(
            queryset.select_for_update(skip_locked=True, of=("self",))
            .order_by()
            .values_list("pk", "tenant_id", "client_id")[:size]
        )

    def work(rows: list) -> None:
        Memory.objects.filter(pk__in=[pk for pk, _, _ in rows], status__in=LIVE_STATUSES).update(
            status=status, invalidated_at=now, status_reason=reason[:300]
        )
        summaries_retire(memory_ids=[pk for pk, _, _ in rows])
        AuditEntry.objects.bulk_create(
            [
                audit_entry(
                    tenant_id=tenant_id,
                    actor_label=f"job:{job}",
                    action=f"memory.{status}",
                    object_type="memory",
                    object_id=pk,
                    reason=reason,
                )
                for pk, tenant_id, _ in rows
            ]
        )
        clients_mark_profile_stale(client_ids={client for _, _, client in rows})

    return claimed_in_batches(claim, work)
