"""The review queue's writes: opening conflict reviews and deciding them.

A decision only changes state and adds relations: memory content is ADD-only (the
database refuses a content UPDATE and any memory DELETE), so "accept the new statement"
means the old one becomes superseded, never that it is rewritten.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext

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
    """One open conflict review per ``conflicts_with`` relation; safe to run twice, also
    after a decision: a pair a supervisor settled (or that was closed as obsolete) is not
    asked again, nor one of which a memory is no longer live (the relation stays, as
    history, after "keep the more recent" supersedes its old end)."""
    items, opened = [], []
    relations = Relation.objects.filter(
        pk__in=relation_ids, type=RelationType.CONFLICTS_WITH
    ).select_related("source", "target")
    for relation in relations:
        new, old = relation.source, relation.target
        if new.status not in LIVE_STATUSES or old.status not in LIVE_STATUSES:
            continue
        closed = ReviewItem.objects.filter(
            type=ReviewItem.Type.CONFLICT, memory=new, other_memory=old
        ).exclude(state=ReviewItem.State.OPEN)
        if closed.exists():
            continue
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

    settling = _Settling(item, new, old, actor, label, reason, timezone.now())
    invalidated = _DECISIONS[decision](settling)

    decision_record(item, decision=decision, actor=actor, reason=reason, now=settling.now)
    _audit_decision(settling, decision, invalidated)
    if invalidated is not None:
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


@dataclass(frozen=True)
class _Settling:
    """A conflict being decided: what each decision's helper needs, passed as one value
    so the four helpers read alike and the audit rows all say the same who, why and when."""

    item: ReviewItem
    new: Memory
    old: Memory
    actor: Any
    actor_label: str
    reason: str
    now: datetime


def _accept_new(s: _Settling) -> Memory:
    """The old memory is superseded; the new one updates it and, when the old one was in
    the core tier, takes its place there if there is room."""
    invalidated = _invalidate(
        s.old, Status.SUPERSEDED, f"superseded by {s.new.pk} in review", s.now
    )
    _relate(s.new, s.old, RelationType.UPDATES, s.actor, s.reason)
    if s.old.tier == Tier.CORE and s.new.tier != Tier.CORE:
        # The core budget wins over the inheritance; a supervisor can move it later.
        with contextlib.suppress(CoreTierFull):
            memory_set_tier(
                memory=s.new,
                tier=Tier.CORE,
                actor=s.actor,
                actor_label=s.actor_label,
                reason="takes the core place of the memory it superseded in review",
                because_of={"replaces": str(s.old.pk), "review_item": str(s.item.pk)},
            )
    return invalidated


def _keep_old(s: _Settling) -> Memory:
    """The new memory is rejected (superseded); the old one stays as it is."""
    return _invalidate(s.new, Status.SUPERSEDED, f"rejected in review: {s.old.pk} kept", s.now)


def _keep_both(s: _Settling) -> None:
    """Nothing changes but the item: the two do not really contradict each other."""
    return None


def _merge(s: _Settling) -> Memory:
    """The new memory is merged into the old one, whose evidence grows by its events."""
    invalidated = _invalidate(s.new, Status.MERGED, f"merged into {s.old.pk} in review", s.now)
    Memory.objects.filter(pk=s.new.pk).update(canonical=s.old)
    _relate(s.new, s.old, RelationType.MERGED_INTO, s.actor, s.reason)
    _move_evidence(source=s.new, target=s.old)
    return invalidated


# Each decision → its helper, which returns the memory it took out of the answers (if any).
_DECISIONS: dict[str, Callable[[_Settling], Memory | None]] = {
    ReviewItem.Decision.KEEP_OLD: _keep_old,
    ReviewItem.Decision.ACCEPT_NEW: _accept_new,
    ReviewItem.Decision.KEEP_BOTH: _keep_both,
    ReviewItem.Decision.MERGE: _merge,
}


def _audit_decision(s: _Settling, decision: str, invalidated: Memory | None) -> None:
    """The decision in the audit trail: on the review item, and on the memory it took out
    of the answers (if any), so that memory's page can say who did it, for what and why.
    Both rows carry the same who, on whose behalf and why."""
    common = {
        "tenant_id": s.item.tenant_id,
        "actor": s.actor,
        "actor_label": s.actor_label,
        "reason": s.reason,
    }
    audit(
        **common,
        action="review.decide",
        object_type="review_item",
        object_id=s.item.pk,
        data={
            "type": s.item.type,
            "decision": decision,
            "memory": str(s.new.pk),
            "other": str(s.old.pk),
            "invalidated": str(invalidated.pk) if invalidated else None,
        },
    )
    if invalidated is None:
        return
    kept = s.old if invalidated is s.new else s.new
    audit(
        **common,
        action="memory.invalidate",
        object_type="memory",
        object_id=invalidated.pk,
        data={
            "status": invalidated.status,
            "decision": decision,
            "kept": str(kept.pk),
            "review_item": str(s.item.pk),
        },
    )


def _ensure_open(item: ReviewItem) -> None:
    if item.state != ReviewItem.State.OPEN:
        done = item.get_decision_display() if item.decision else item.get_state_display()
        raise ReviewClosed(
            gettext(
                "This item is already closed (%(done)s). Reload the queue to see what is still "
                "open."
            )
            % {"done": done}
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
