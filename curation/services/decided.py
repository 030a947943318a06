"""A review item decided: the one place that records a decision, whoever takes it (a
supervisor settling a conflict or a promotion, or the tenant's auto-approval policy), and
so the one place the ``review.decided`` webhook event comes from. Called inside the
deciding transaction."""

from __future__ import annotations

from curation.models import ReviewItem
from memories.services.webhooks import events as webhook_events


def decision_record(item: ReviewItem, *, decision: str, actor, reason: str, now) -> None:
    item.state = ReviewItem.State.DECIDED
    item.decision = decision
    item.decided_by = actor
    item.decided_at = now
    item.reason = reason
    item.save(update_fields=["state", "decision", "decided_by", "decided_at", "reason"])
    webhook_events.review_decided(item=item)
