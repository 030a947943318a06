"""The review queue's writes: opening conflict reviews and deciding them.

A decision only changes state and adds relations: memory content is ADD-only (the
database refuses a content UPDATE and any memory DELETE), so "accept the new statement"
means the old one becomes superseded, never that it is rewritten.
"""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone

from curation.models import ReviewItem
from curation.services.decided import decision_record
from curation.services.promotion import ReviewClosed, promotion_decide
from memories.errors import DomainError
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Evidence,
    Memory,
    Relation,
    RelationType,
    Status,
    Tier,
)
from memories.services.tenancy.audit import audit, audit_entry
from memories.services.webhooks import events as webhook_events
from memories.services.write.core_budget import CoreTierFull
from memories.services.write.lifecycle import memory_set_tier
from memories.services.write.staleness import clients_mark_profile_stale, summaries_retire

CONFLICT_DECISIONS = (
    ReviewItem.Decision.KEEP_OLD,
    ReviewItem.Decision.ACCEPT_NEW,
    ReviewItem.Decision.KEEP_BOTH,
    ReviewItem.Decision.MERGE,
)


@transaction.atomic
def conflict_reviews_open(*, relation_ids: list[int]) -> list[ReviewItem]:
    """One open conflict review per ``conflicts_with`` relation; safe to run twice."""
    items, opened = [], []
    relations = Relation.objects.filter(
        pk__in=relation_ids, type=RelationType.CONFLICTS_WITH
    ).select_related("source", "target")
    for relation in relations:
        new, old = relation.source, relation.target
        item, created = ReviewItem.objects.get_or_create(
            type=ReviewItem.Type.CONFLICT,
            memory=new,
            other_memory=old,
            state=ReviewItem.State.OPEN,
            defaults={
                "tenant_id": new.tenant_id,
                "client_id": new.client_id,
                "summary": "A new statement contradicts what memory holds.",
            },
        )
        if created:
            audit(
                tenant_id=new.tenant_id,
                action="review.open",
                object_type="review_item",
                object_id=str(item.pk),
                data={"type": "conflict", "memory": str(new.pk), "other": str(old.pk)},
            )
            opened.append(item)
        items.append(item)
    webhook_events.conflicts_opened(items=opened)
    return items


@transaction.atomic
def conflict_decide(
    *, item: ReviewItem, decision: str, actor, reason: str = "", actor_label: str = ""
) -> ReviewItem:
    """Settle a conflict between ``item.memory`` (new) and ``item.other_memory`` (old).

    - ``accept_new``: the old memory is superseded and the new one ``updates`` it (and
      takes its place in the core tier when it was there and there is room);
    - ``keep_old``: the new memory is superseded (rejected), the old one stays;
    - ``keep_both``: both stay live: they do not really contradict each other;
    - ``merge``: they say the same thing: the new one is ``merged_into`` the old one,
      whose evidence grows by the new one's events.

    If either memory stopped being live since the item was opened, nothing is decided:
    the item becomes obsolete and is returned in that state. Whatever a decision
    invalidates also makes the other open items about that memory obsolete.
    """
    if decision not in CONFLICT_DECISIONS:
        raise DomainError(
            f"Unknown decision {decision!r}: choose one of {', '.join(CONFLICT_DECISIONS)}.",
            fields={"decision": ["Not a conflict decision."]},
        )
    item = ReviewItem.objects.select_for_update().get(pk=item.pk)
    if item.type != ReviewItem.Type.CONFLICT:
        raise DomainError("This review item is a promotion: approve or reject it instead.")
    _ensure_open(item)
    memories = Memory.objects.select_for_update().in_bulk([item.memory_id, item.other_memory_id])
    new, old = memories[item.memory_id], memories[item.other_memory_id]
    label = actor_label or (actor.get_username() if actor else "")

    stale = [m for m in (new, old) if m.status not in LIVE_STATUSES]
    if stale:
        _mark_obsolete(
            [item],
            why="; ".join(f"memory {m.pk} is now {m.status}" for m in stale),
            actor=actor,
            actor_label=label,
        )
        item.refresh_from_db()
        return item

    now = timezone.now()
    invalidated: Memory | None = None
    if decision == ReviewItem.Decision.ACCEPT_NEW:
        invalidated = _invalidate(old, Status.SUPERSEDED, f"superseded by {new.pk} in review", now)
        _relate(new, old, RelationType.UPDATES, actor, reason)
        if old.tier == Tier.CORE and new.tier != Tier.CORE:
            # The core budget wins over the inheritance; a supervisor can move it later.
            with contextlib.suppress(CoreTierFull):
                memory_set_tier(
                    memory=new,
                    tier=Tier.CORE,
                    actor=actor,
                    actor_label=label,
                    reason=f"takes the core place of {old.pk} (review {item.pk})",
                )
    elif decision == ReviewItem.Decision.KEEP_OLD:
        invalidated = _invalidate(new, Status.SUPERSEDED, f"rejected in review: {old.pk} kept", now)
    elif decision == ReviewItem.Decision.MERGE:
        invalidated = _invalidate(new, Status.MERGED, f"merged into {old.pk} in review", now)
        Memory.objects.filter(pk=new.pk).update(canonical=old)
        _relate(new, old, RelationType.MERGED_INTO, actor, reason)
        _move_evidence(source=new, target=old)

    decision_record(item, decision=decision, actor=actor, reason=reason, now=now)
    audit(
        tenant_id=item.tenant_id,
        actor=actor,
        actor_label=label,
        action="review.decide",
        object_type="review_item",
        object_id=item.pk,
        reason=reason,
        data={
            "type": item.type,
            "decision": decision,
            "memory": str(new.pk),
            "other": str(old.pk),
            "invalidated": str(invalidated.pk) if invalidated else None,
        },
    )
    if invalidated is not None:
        # On the memory itself too, so its page can say who took it out of the answers,
        # for what and why.
        kept = old if invalidated is new else new
        audit(
            tenant_id=item.tenant_id,
            actor=actor,
            actor_label=label,
            action="memory.invalidate",
            object_type="memory",
            object_id=invalidated.pk,
            reason=reason,
            data={
                "status": invalidated.status,
                "decision": decision,
                "kept": str(kept.pk),
                "review_item": str(item.pk),
            },
        )
        _mark_obsolete(
            list(
                ReviewItem.objects.select_for_update()
                .filter(state=ReviewItem.State.OPEN)
                .filter(Q(memory=invalidated) | Q(other_memory=invalidated))
            ),
            why=f"memory {invalidated.pk} is now {invalidated.status}",
            actor=actor,
            actor_label=label,
        )
    # The profile quotes live memories: the next read rebuilds it (see staleness).
    clients_mark_profile_stale(client_ids=[item.client_id])
    return item


def _ensure_open(item: ReviewItem) -> None:
    if item.state != ReviewItem.State.OPEN:
        done = item.get_decision_display() if item.decision else item.get_state_display()
        raise ReviewClosed(
            f"This item is already closed ({done}). Reload the queue to see what is still open."
        )


def _invalidate(memory: Memory, status: str, why: str, now) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(
        status=status, invalidated_at=now, status_reason=why[:300]
    )
    memory.status, memory.invalidated_at, memory.status_reason = status, now, why[:300]
    summaries_retire(memory_ids=[memory.pk])
    return memory


def _relate(source: Memory, target: Memory, type_: str, actor, reason: str) -> Relation:
    relation, _ = Relation.objects.get_or_create(
        source=source,
        target=target,
        type=type_,
        defaults={
            "tenant_id": source.tenant_id,
            "created_by": actor,
            "reason": ("review: " + reason)[:300] if reason else "review decision",
        },
    )
    return relation


def _move_evidence(*, source: Memory, target: Memory) -> None:
    """The merged memory's events become evidence of the one it merged into (added rows:
    the source keeps its own links, so its history still reads the same)."""
    known = set(Evidence.objects.filter(memory=target).values_list("event_id", flat=True))
    added = Evidence.objects.bulk_create(
        [
            Evidence(
                memory=target, event_id=e.event_id, role=Evidence.Role.CONSOLIDATED, related=source
            )
            for e in Evidence.objects.filter(memory=source).exclude(event_id__in=known)
        ]
    )
    Memory.objects.filter(pk=target.pk).update(
        evidence_count=F("evidence_count") + len(added),
        dup_count=F("dup_count") + 1,
        last_seen_at=Greatest(F("last_seen_at"), source.last_seen_at),
    )


def _mark_obsolete(items: list[ReviewItem], *, why: str, actor, actor_label: str) -> None:
    if not items:
        return
    ReviewItem.objects.filter(pk__in=[i.pk for i in items]).update(
        state=ReviewItem.State.OBSOLETE, reason=why
    )
    AuditEntry.objects.bulk_create(
        [
            audit_entry(
                tenant_id=i.tenant_id,
                actor=actor,
                actor_label=actor_label,
                action="review.obsolete",
                object_type="review_item",
                object_id=i.pk,
                reason=why,
                data={"type": i.type},
            )
            for i in items
        ]
    )


def review_decide(
    *, item: ReviewItem, decision: str, actor, reason: str = "", actor_label: str = ""
) -> ReviewItem:
    """One door for every decision, whatever the item's type (pages and API call this)."""
    if item.type == ReviewItem.Type.CONFLICT:
        return conflict_decide(
            item=item, decision=decision, actor=actor, reason=reason, actor_label=actor_label
        )
    if decision not in (ReviewItem.Decision.APPROVE, ReviewItem.Decision.REJECT):
        raise DomainError(
            f"Unknown decision {decision!r}: a promotion is approved or rejected.",
            fields={"decision": ["Not a promotion decision."]},
        )
    return promotion_decide(
        item=item, approve=decision == ReviewItem.Decision.APPROVE, actor=actor, reason=reason
    )
