"""Reads, folded into counters: search logs each hit as a MemoryAccess row (reads never
update memory rows); this job folds pending rows into ``usage_count`` and
``last_accessed_at``."""

from __future__ import annotations

from collections import Counter

from django.db import connection, transaction

from memories.models import MemoryAccess


@transaction.atomic
def accesses_roll_up(*, limit: int = 50_000) -> dict:
    """Fold pending access rows into usage_count and last_accessed_at. Safe to run twice
    or concurrently: rows are claimed with SKIP LOCKED and marked once folded."""
    pending = list(
        MemoryAccess.objects.filter(rolled_up=False)
        .select_for_update(skip_locked=True)
        .values_list("pk", "memory_id", "at")[:limit]
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
