"""Reads, folded into counters: search logs each hit as a MemoryAccess row (reads never
update memory rows); this job folds pending rows into ``usage_count`` and
``last_accessed_at``."""

from __future__ import annotations

from collections import Counter

from django.db import connection, transaction

from memories.models import MemoryAccess
from memories.services.jobs.runner import JobCounts

BATCH = 50_000


@transaction.atomic
def accesses_roll_up(*, limit: int = BATCH, tenant_id=None) -> dict:
    """Fold pending access rows (of one tenant's clients, or all) into usage_count and
    last_accessed_at. Safe to run twice or concurrently: rows are claimed with SKIP LOCKED
    and marked once folded."""
    pending_rows = MemoryAccess.objects.filter(rolled_up=False)
    if tenant_id is not None:
        pending_rows = pending_rows.filter(client__tenant_id=tenant_id)
    pending = list(
        pending_rows.select_for_update(skip_locked=True, of=("self",)).values_list(
            "pk", "memory_id", "at"
        )[:limit]
    )
    if not pending:
        return {"accesses": 0, "memories": 0}
    counts = Counter(memory_id for _, memory_id, _ in pending)
    latest: dict = {}
    for _, memory_id, at in pending:
        latest[memory_id] = max(at, latest.get(memory_id, at))
    ids = list(counts)
    with connection.cursor() as cursor:
        # One statement for every memory read; GREATEST ignores NULL, so the first access sets it.
        cursor.execute(
            "UPDATE memories_memory m SET usage_count = m.usage_count + r.n, "
            "last_accessed_at = GREATEST(m.last_accessed_at, r.at) "
            "FROM unnest(%s::uuid[], %s::int[], %s::timestamptz[]) AS r(id, n, at) "
            "WHERE m.id = r.id",
            [ids, [counts[i] for i in ids], [latest[i] for i in ids]],
        )
    MemoryAccess.objects.filter(pk__in=[pk for pk, _, _ in pending]).update(rolled_up=True)
    return {"accesses": len(pending), "memories": len(counts)}


def accesses_roll_up_job(*, tenant_id=None, counts: JobCounts) -> None:
    """The registered job (``run_job roll_up_accesses``, the schedule): every pending read,
    a batch per transaction."""
    while True:
        done = accesses_roll_up(tenant_id=tenant_id)
        counts.add("accesses", done["accesses"])
        counts.add("memories", done["memories"])
        if done["accesses"] < BATCH:
            return
