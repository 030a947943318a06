"""The review API's shapes: what it takes (a decision, the queue's filters) and what it
answers (an item, a page of the queue, one item with its memories' evidence), each beside
the function that fills it. Apart from the views so the three calls visibly share one item
shape, and the contract reads in one place."""

from __future__ import annotations

from rest_framework import serializers

from curation.models import ReviewItem
from curation.selectors import DEFAULT_SORT, SORTS
from memories.api.fields import StrictCharField, StrictSerializer
from memories.api.outputs import memory_detail_data
from memories.api.shapes import MemoryDetailSerializer
from memories.models import Kind


class DecisionInSerializer(StrictSerializer):
    decision = serializers.ChoiceField(
        choices=[d for d in ReviewItem.Decision.values if d],
        help_text="keep_old, accept_new, keep_both or merge for a conflict; approve or "
        "reject for a promotion. A decision the item's type does not take is refused (400).",
    )
    reason = StrictCharField(max_length=2000, required=False, default="", allow_blank=True)


class ReviewItemOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    type = serializers.CharField()
    state = serializers.CharField()
    decision = serializers.CharField()
    reason = serializers.CharField()
    memory = serializers.UUIDField()
    other_memory = serializers.UUIDField(allow_null=True)
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)


def review_item_data(item: ReviewItem) -> dict:
    return {
        "id": str(item.pk),
        "type": item.type,
        "state": item.state,
        "decision": item.decision,
        "reason": item.reason,
        "memory": str(item.memory_id),
        "other_memory": str(item.other_memory_id) if item.other_memory_id else None,
        "decided_by": item.decided_by.get_username() if item.decided_by else None,
        "decided_at": item.decided_at.isoformat() if item.decided_at else None,
    }


class QueueInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200, required=False, help_text="A client's reference.")
    type = serializers.ChoiceField(choices=ReviewItem.Type.choices, required=False)
    kind = serializers.ChoiceField(
        choices=Kind.choices, required=False, help_text="The kind of the item's memory."
    )
    min_score = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text="Promotions scored this or more."
    )
    sort = serializers.ChoiceField(
        choices=list(SORTS),
        default=DEFAULT_SORT,
        help_text="recommended (recommended promotions first, then by score, newest first), "
        "score, newest or oldest.",
    )
    page = serializers.IntegerField(min_value=1, max_value=1_000_000, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=20)


class QueueItemSerializer(ReviewItemOutSerializer):
    client = serializers.CharField(help_text="The client's reference.")
    score = serializers.FloatField(allow_null=True)
    recommended = serializers.BooleanField()
    summary = serializers.CharField()
    created_at = serializers.DateTimeField()


class QueueOutSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.IntegerField(allow_null=True, help_text="The next page's number.")
    previous = serializers.IntegerField(allow_null=True)
    results = QueueItemSerializer(many=True)


def queue_item_data(item: ReviewItem) -> dict:
    return {
        **review_item_data(item),
        "client": item.client.external_ref,
        "score": item.score,
        "recommended": item.recommended,
        "summary": item.summary,
        "created_at": item.created_at.isoformat(),
    }


class ReviewEvidenceSerializer(serializers.Serializer):
    event = serializers.UUIDField()
    external_id = serializers.CharField()
    observed_at = serializers.DateTimeField()
    role = serializers.CharField()
    speaker = serializers.CharField()
    content = serializers.CharField(help_text="What the event said.")


class ReviewMemorySerializer(MemoryDetailSerializer):
    evidence = ReviewEvidenceSerializer(many=True)  # type: ignore[assignment]


class QueueItemDetailSerializer(QueueItemSerializer):
    score_components = serializers.DictField()
    memory_detail = ReviewMemorySerializer(help_text="The new memory, or the candidate.")
    other_memory_detail = ReviewMemorySerializer(
        allow_null=True, help_text="The memory it contradicts (conflicts only)."
    )


def review_memory_data(memory, evidence) -> dict:
    """One of the item's memories with its evidence, as ``ReviewMemorySerializer``."""
    rows = [
        {
            "event": str(e.event_id),
            "external_id": e.event.external_id,
            "observed_at": e.event.observed_at,
            "role": e.role,
            "speaker": e.event.speaker,
            "content": e.event.content,
        }
        for e in evidence
    ]
    return memory_detail_data(memory, evidence=rows, relations=[])
