"""State changes of one memory on a person's or an agent's request (content never changes)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext

from memories.errors import Conflict, DomainError
from memories.models import LIVE_STATUSES, Memory, MemoryAccess, Status, Tier
from memories.services.tenancy.audit import audit
from memories.services.write.core_budget import ensure_core_room
from memories.services.write.staleness import clients_mark_profile_stale, summaries_retire
from memoryhub.observability import traces

FEEDBACK_CONFIDENCE_STEP = 0.05
FEEDBACK_CONFIDENCE_FLOOR = 0.1


def state_of(memory: Memory) -> dict:
    """A memory's status, its reason and when it stopped being live: what an undo of a
    change restores."""
    return {
        "status": memory.status,
        "status_reason": memory.status_reason,
        "invalidated_at": memory.invalidated_at.isoformat() if memory.invalidated_at else None,
    }


@transaction.atomic
def memory_forget(*, memory: Memory, actor, actor_label: str, reason: str = "") -> Memory:
    """Soft delete: the memory leaves every answer; its row and evidence stay for audit."""
    with traces.memory_operation("delete_memory", store=memory.client_id, record=memory.pk):
        return _forgotten(memory, actor, actor_label, reason)


def _forgotten(memory: Memory, actor, actor_label: str, reason: str) -> Memory:
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if current.status != Status.DELETED:
        now = timezone.now()
        before = state_of(current)  # what an undo restores (``corrections.change_undo``)
        Memory.objects.filter(pk=memory.pk).update(
            status=Status.DELETED,
            invalidated_at=now,
            status_reason=(reason or "forgotten on request")[:300],
        )
        summaries_retire(memory_ids=[memory.pk])
        audit(
            tenant_id=memory.tenant_id,
            actor=actor,
            actor_label=actor_label,
            action="memory.forget",
            object_type="memory",
            object_id=str(memory.pk),
            reason=reason,
            data={"before": before},
        )
        clients_mark_profile_stale(client_ids=[memory.client_id])
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
        # The profile keeps only confident facts: a lower confidence may take it out.
        clients_mark_profile_stale(client_ids=[memory.client_id])
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
def memory_set_tier(
    *,
    memory: Memory,
    tier: str,
    actor=None,
    actor_label: str = "",
    pin: bool = False,
    reason: str = "",
    because_of: dict[str, str] | None = None,
) -> Memory:
    """Move ``memory`` to ``tier``; ``pin`` keeps automatic moves away from it.
    ``because_of`` names, for the audit trail, the memory (``replaces``) or the review item
    (``review_item``) that led to the move, by id: the trail shows them as links."""
    if tier not in Tier.values:
        raise DomainError(f"Unknown tier {tier!r}.", fields={"tier": ["Not a tier."]})
    if memory.status not in LIVE_STATUSES:
        # Out of every answer: no tier decides where it is read from.
        raise Conflict(
            gettext(
                "This memory is %(status)s: it is in no answer, so it has no tier to set. Set "
                "the tier of the memory that replaced it."
            )
            % {"status": memory.get_status_display().lower()},
            code="not_live",
        )
    # Lock the client's core tier against a concurrent move that would also fit alone. NO
    # KEY UPDATE: moves queue behind each other, not behind the reads being logged (an
    # access row holds its memory FOR KEY SHARE), which deadlocked a search with the job.
    Memory.objects.select_for_update(no_key=True).filter(
        client_id=memory.client_id, tier=Tier.CORE
    ).exists()
    if tier == Tier.CORE and memory.tier != Tier.CORE:
        ensure_core_room(memory.client_id, memory.content, excluding=memory.pk)
    previous = memory.tier
    if previous == tier and (memory.tier_pinned or not pin):
        return memory  # already there (and pinned, if asked): nothing changes, nothing audited
    Memory.objects.filter(pk=memory.pk).update(tier=tier, tier_pinned=pin or memory.tier_pinned)
    audit(
        tenant_id=memory.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="memory.set_tier",
        object_type="memory",
        object_id=memory.pk,
        reason=reason,
        data={"from": previous, "to": tier, "pinned": pin, **(because_of or {})},
    )
    clients_mark_profile_stale(client_ids=[memory.client_id])
    memory.refresh_from_db()
    return memory
