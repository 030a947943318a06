"""State changes of one memory on a person's or an agent's request (content never changes)."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from memories.models import Memory, MemoryAccess, Status
from memories.services.audit import audit

FEEDBACK_CONFIDENCE_STEP = 0.05
FEEDBACK_CONFIDENCE_FLOOR = 0.1


@transaction.atomic
def memory_forget(*, memory: Memory, actor, actor_label: str, reason: str = "") -> Memory:
    """Soft delete: the memory leaves every answer; its row and evidence stay for audit."""
    if memory.status != Status.DELETED:
        now = timezone.now()
        Memory.objects.filter(pk=memory.pk).update(
            status=Status.DELETED,
            invalidated_at=now,
            status_reason=(reason or "forgotten on request")[:300],
        )
        audit(
            tenant_id=memory.tenant_id,
            actor=actor,
            actor_label=actor_label,
            action="memory.forget",
            object_type="memory",
            object_id=str(memory.pk),
            reason=reason,
        )
        memory.refresh_from_db()
    return memory


@transaction.atomic
def memory_feedback(
    *, memory: Memory, useful: bool, actor, actor_label: str, note: str = ""
) -> Memory:
    """An agent says whether a memory helped: useful counts as a use; not useful lowers its
    confidence a step, so it ranks lower without being forgotten."""
    if useful:
        MemoryAccess.objects.create(memory=memory, client_id=memory.client_id)
    else:
        Memory.objects.filter(pk=memory.pk).update(
            confidence=Greatest(
                F("confidence") - FEEDBACK_CONFIDENCE_STEP, FEEDBACK_CONFIDENCE_FLOOR
            )
        )
    audit(
        tenant_id=memory.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="memory.feedback",
        object_type="memory",
        object_id=str(memory.pk),
        reason=note,
        data={"useful": useful},
    )
    memory.refresh_from_db()
    return memory


@transaction.atomic
def accesses_roll_up(*, limit: int = 50_000) -> dict:
    """Fold pending access rows into usage_count and last_accessed_at. Safe to run twice
    or concurrently: rows are claimed with SKIP LOCKED and marked once folded."""
    from collections import Counter

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
