"""Automatic tier moves by access (seed 000): recall → core when hot, core → recall and
recall → archival when cold. Promotion to core stops at the client's core budget
(``memories.services.write.core_budget``)."""

from __future__ import annotations

import math
from datetime import timedelta

from django.db.models import Count
from django.db.models.functions import Greatest
from django.utils import timezone

from memories.conf import setting
from memories.errors import Conflict
from memories.models import AuditEntry, Memory, MemoryAccess, Tier, unexpired
from memories.services.jobs.accesses import accesses_roll_up
from memories.services.jobs.claims import claimed_in_batches
from memories.services.tenancy.audit import audit_entry
from memories.services.write.core_budget import CoreTierFull
from memories.services.write.lifecycle import memory_set_tier


def tiers_move(*, tenant_id=None, counts) -> None:
    """Automatic tier moves by access (seed 000 §1.1); pinned memories are left alone.

    core → recall after TIER_CORE_IDLE_DAYS without a read or restatement; recall →
    archival after TIER_ARCHIVAL_IDLE_DAYS; archival → recall once used again within that
    window; recall → core when read TIER_CORE_MIN_ACCESSES times in TIER_CORE_WINDOW_DAYS
    and its recency weight is above TIER_CORE_MIN_RECENCY, most read first, while the
    client's core budget lasts. Reads are rolled up first so the idle times are current.
    """
    while accesses_roll_up()["accesses"]:
        pass
    now = timezone.now()
    movable = Memory.objects.live().filter(tier_pinned=False)
    if tenant_id is not None:
        movable = movable.filter(tenant_id=tenant_id)
    movable = movable.annotate(active=Greatest("last_accessed_at", "last_seen_at"))
    core_idle = now - timedelta(days=float(setting("TIER_CORE_IDLE_DAYS")))
    archival_idle = now - timedelta(days=float(setting("TIER_ARCHIVAL_IDLE_DAYS")))
    moves = [
        ("core_to_recall", movable.filter(tier=Tier.CORE, active__lt=core_idle), Tier.RECALL),
        (
            "recall_to_archival",
            movable.filter(tier=Tier.RECALL, active__lt=archival_idle),
            Tier.ARCHIVAL,
        ),
        (
            "archival_to_recall",
            movable.filter(tier=Tier.ARCHIVAL, active__gte=archival_idle),
            Tier.RECALL,
        ),
    ]
    for name, queryset, tier in moves:
        counts.add(name, _move(queryset, tier, now, reason=name.replace("_", " ")))
    _promote_hot(movable, now, counts)
    window = timedelta(days=float(setting("TIER_CORE_WINDOW_DAYS")))
    spent = MemoryAccess.objects.filter(rolled_up=True, at__lt=now - window)
    if tenant_id is not None:
        spent = spent.filter(client__tenant_id=tenant_id)
    counts.add("accesses_pruned", spent.delete()[0])


def _move(queryset, tier: str, now, *, reason: str) -> int:
    size = int(setting("JOB_BATCH_SIZE"))

    def claim() -> list:
        return list(
            queryset.select_for_update(skip_locked=True, of=("self",))
            .order_by()
            .values_list("pk", "tenant_id", "tier")[:size]
        )

    def work(rows: list) -> None:
        Memory.objects.filter(pk__in=[pk for pk, _, _ in rows]).update(tier=tier)
        AuditEntry.objects.bulk_create(
            [
                audit_entry(
                    tenant_id=tenant_id,
                    actor_label="job:tiers",
                    action="memory.set_tier",
                    object_type="memory",
                    object_id=pk,
                    reason=reason,
                    data={"from": previous, "to": tier, "pinned": False},
                )
                for pk, tenant_id, previous in rows
            ]
        )

    return claimed_in_batches(claim, work)


def _promote_hot(movable, now, counts) -> None:
    window_start = now - timedelta(days=float(setting("TIER_CORE_WINDOW_DAYS")))
    half_life = float(setting("RECENCY_HALF_LIFE_DAYS"))
    min_recency = float(setting("TIER_CORE_MIN_RECENCY"))
    # recency = 0.5 ** (days since last restated / half-life) > min ⇔ restated recently enough
    recent = now - timedelta(days=half_life * math.log(min_recency, 0.5))
    reads = dict(
        MemoryAccess.objects.filter(at__gte=window_start)
        .values("memory_id")
        .annotate(n=Count("id"))
        .filter(n__gte=int(setting("TIER_CORE_MIN_ACCESSES")))
        .values_list("memory_id", "n")
    )
    hot = (
        movable.filter(pk__in=list(reads), tier__in=(Tier.RECALL, Tier.ARCHIVAL))
        .filter(last_seen_at__gt=recent)
        .filter(unexpired(now))
        .values_list("pk", "client_id", "created_at")
    )
    hot = sorted(hot, key=lambda row: (str(row[1]), -reads[row[0]], row[2], str(row[0])))
    by_client: dict = {}
    for pk, client_id, _ in hot:
        by_client.setdefault(client_id, []).append(pk)
    for ids in by_client.values():
        hot_memories_promote(ids, counts)


def hot_memories_promote(ids: list, counts) -> None:
    """Move to core, in order, the memories of one client found hot, as far as its core
    budget goes; those moved, pinned, replaced or forgotten since they were found (an
    ingest or a person may act meanwhile) are left as they now are.

    Each move is a transaction of its own: one for them all would hold the client's row
    (the profile's stale mark) from the first move on while the next waits for a memory an
    ingest holds, and that ingest waits for the client's row (a deadlock under load)."""
    fresh = Memory.objects.in_bulk(ids)
    for memory in (fresh[pk] for pk in ids if pk in fresh):
        memory.refresh_from_db()  # as it is now, not as the batch found it
        if memory.tier == Tier.CORE or memory.tier_pinned:
            continue  # moved meanwhile
        try:
            memory_set_tier(
                memory=memory,
                tier=Tier.CORE,
                actor_label="job:tiers",
                reason="read often and recently",
            )
            counts.add("recall_to_core")
        except CoreTierFull:
            counts.add("core_full")
        except Conflict as exc:
            if exc.code != "not_live":
                raise
            counts.add("no_longer_live")
