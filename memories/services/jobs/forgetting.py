"""Forgetting: the TTL sweep (seed 004 §8 job A) and decay (seed 003 phase 2).

Nothing is deleted: a memory that runs out of time becomes ``expired``, one that decayed
below the floor becomes ``deleted`` (a soft delete) with the reason in ``status_reason``,
and both keep their rows, evidence and relations. Each rule claims its rows in batches
with ``FOR UPDATE SKIP LOCKED`` and only rows still live match, so a second run, or a
second worker, finds nothing left to do.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction
from django.db.models import BooleanField, Exists, OuterRef
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    JobRun,
    Kind,
    Memory,
    Relation,
    RelationType,
    Status,
)
from memories.services.jobs.claims import batches, claimed_in_batches
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry
from memories.services.write.staleness import clients_mark_profile_stale


def ttl_sweep(*, tenant_id=None, counts: JobCounts) -> None:
    now = timezone.now()
    live = Memory.objects.filter(status__in=LIVE_STATUSES)
    if tenant_id is not None:
        live = live.filter(tenant_id=tenant_id)
    consolidated = Relation.objects.filter(target=OuterRef("pk"), type=RelationType.DERIVES)
    rules = [
        ("past_expires_at", live.filter(expires_at__lte=now), "expired: past its expiry"),
        (
            "operational",
            live.filter(
                kind=Kind.OPERATIONAL,
                expires_at__isnull=True,
                last_seen_at__lt=now - timedelta(hours=float(setting("OPERATIONAL_TTL_HOURS"))),
            ).exclude(status=Status.PROMOTED),
            "expired: operational context older than its TTL",
        ),
        (
            "raw_episodic",
            live.filter(
                Exists(consolidated),
                kind=Kind.EPISODIC,
                last_seen_at__lt=now - timedelta(days=float(setting("RAW_EPISODIC_TTL_DAYS"))),
            ).exclude(status=Status.PROMOTED),
            "expired: raw episode, consolidated and past its TTL",
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
    """Freshness = 1 / (1 + idle days × rate); a memory whose confidence × freshness has been
    below the floor for FORGET_AFTER_DAYS is forgotten. Idle means neither read nor restated.

    The score only falls with idle time, so the day it crossed the floor follows from the
    last activity: confidence / (1 + d × rate) < floor ⇔ d > (confidence / floor − 1) / rate.
    """
    now = timezone.now()
    rate, floor = float(setting("DECAY_RATE_PER_DAY")), float(setting("FORGET_SCORE_FLOOR"))
    after = float(setting("FORGET_AFTER_DAYS"))
    counts.add("freshness_updated", _refresh_freshness(tenant_id, now, rate))

    below_long_enough = RawSQL(
        "EXTRACT(EPOCH FROM (%s - GREATEST(last_accessed_at, last_seen_at))) / 86400.0 "
        "> (confidence / %s - 1) / %s + %s",
        [now, floor, rate, after],
        output_field=BooleanField(),
    )
    forgettable = (
        Memory.objects.filter(status=Status.ACTIVE, tier_pinned=False)
        .alias(forget=below_long_enough)
        .filter(forget=True)
    )
    if tenant_id is not None:
        forgettable = forgettable.filter(tenant_id=tenant_id)
    reason = f"forgotten: decay score below {floor:g} for more than {after:g} days"
    counts.add(
        "forgotten",
        _invalidate(forgettable, status=Status.DELETED, reason=reason, now=now, job="decay"),
    )


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
