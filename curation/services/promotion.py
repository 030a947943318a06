"""Deciding a promotion: the one door through which a memory becomes canonical.

A supervisor (through the review queue) and the tenant's auto-approve policy (through the
promotion scoring job, with ``actor=None``) both call ``promotion_decide``.

- Approve: the memory's status becomes ``promoted``; retrieval ranks it first among equals
  at once (canonicity 1.0). Its tier does not move: tier follows access, status follows
  trust, and DESIGN keeps the two axes apart (a promoted memory reaches the core tier by
  being used, or by a supervisor's tier override).
- Reject: the decision and reason are recorded; a candidate goes back to ``active`` (it is
  no longer waiting for a decision) and nothing else about it changes. The scoring job
  does not propose it again until PROMOTION_REJECT_COOLDOWN_DAYS have passed or new
  evidence arrives.
- An item already decided, or obsolete, is refused with a domain error (409). An item
  whose memory stopped being live meanwhile (merged, superseded, expired, deleted) is
  marked obsolete and refused.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from curation.models import ReviewItem
from curation.services.decided import decision_record
from memories.errors import Conflict, DomainError
from memories.models import Memory, Status
from memories.services.tenancy.audit import audit
from memories.services.write.staleness import clients_mark_profile_stale

PROMOTABLE_STATUSES = (Status.ACTIVE, Status.CANDIDATE)
POLICY_LABEL = "tenant auto-approve policy"


class ReviewClosed(Conflict):
    """The item was decided or became obsolete: nothing left to decide."""

    code = "review_closed"


class ContradictsCanonical(Conflict):
    code = "contradicts_canonical"


def promotion_decide(*, item: ReviewItem, approve: bool, actor, reason: str = "") -> ReviewItem:
    """Approve or reject the promotion ``item``; ``actor`` None means the tenant's policy."""
    if item.type != ReviewItem.Type.PROMOTION:
        raise DomainError("This review item is not a promotion.", code="not_a_promotion")
    actor_label = str(actor) if actor is not None else POLICY_LABEL
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().get(pk=item.pk)
        if locked.state != ReviewItem.State.OPEN:
            raise ReviewClosed(
                f"This promotion was already {locked.get_state_display().lower()}"
                + (f" ({locked.get_decision_display().lower()})." if locked.decision else ".")
            )
        memory = Memory.objects.select_for_update().get(pk=locked.memory_id)
        if memory.status in PROMOTABLE_STATUSES:
            if approve:
                _refuse_if_contradicts_canonical(memory)
            _decide(locked, memory, approve=approve, actor=actor, label=actor_label, why=reason)
            _copy(locked, item)
            return item
        # The memory changed meanwhile: the question no longer stands.
        locked.state = ReviewItem.State.OBSOLETE
        locked.save(update_fields=["state"])
        audit(
            tenant_id=locked.tenant_id,
            actor=actor,
            actor_label=actor_label,
            action="review.obsolete",
            object_type="review_item",
            object_id=locked.pk,
            data={"memory": str(memory.pk), "memory_status": memory.status},
        )
        _copy(locked, item)
    raise ReviewClosed(
        f"The memory is now {memory.get_status_display().lower()}: this promotion is obsolete."
    )


def _decide(item: ReviewItem, memory: Memory, *, approve: bool, actor, label: str, why: str):
    decision = ReviewItem.Decision.APPROVE if approve else ReviewItem.Decision.REJECT
    decision_record(item, decision=decision, actor=actor, reason=why, now=timezone.now())
    if approve:
        Memory.objects.filter(pk=memory.pk).update(
            status=Status.PROMOTED, status_reason=f"promoted by {label}"[:300]
        )
    elif memory.status == Status.CANDIDATE:
        Memory.objects.filter(pk=memory.pk).update(
            status=Status.ACTIVE, status_reason=f"promotion rejected by {label}"[:300]
        )
    clients_mark_profile_stale(client_ids=[memory.client_id])
    audit(
        tenant_id=item.tenant_id,
        actor=actor,
        actor_label=label,
        action="promotion.approve" if approve else "promotion.reject",
        object_type="memory",
        object_id=memory.pk,
        reason=why,
        data={"review_item": str(item.pk), "score": item.score, "from": memory.status},
    )


def _refuse_if_contradicts_canonical(memory: Memory) -> None:
    """One canonical record per attribute (seed 004 §9.4): a promoted memory about the same
    thing with another value must be settled as a conflict first."""
    if not memory.attribute:
        return
    rival = (
        Memory.objects.filter(
            client_id=memory.client_id, attribute=memory.attribute, status=Status.PROMOTED
        )
        .filter(~Q(attribute_value=memory.attribute_value) | ~Q(negated=memory.negated))
        .first()
    )
    if rival is not None:
        raise ContradictsCanonical(
            f"It contradicts the promoted memory {rival.pk} about {memory.attribute}: "
            "settle that conflict first."
        )


def _copy(source: ReviewItem, target: ReviewItem) -> None:
    for name in ("state", "decision", "decided_by", "decided_at", "reason"):
        setattr(target, name, getattr(source, name))
