"""GET /api/v1/review/ and /api/v1/review/{id}/: the review queue for scripts and agents'
supervisors, beside the decide call (``curation.api``): the open items, filtered, sorted
and paged as the page shows them (``curation.selectors``), and one item with both memories
and their evidence. The same base view, item shape and permissions as the decide call."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from curation.api import DECIDED_EXAMPLE, ReviewItemOutSerializer, review_item_data
from curation.models import ReviewItem
from curation.selectors import DEFAULT_SORT, SORTS, open_items, review_cards
from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, tenant_of
from memories.api.fields import StrictCharField, StrictSerializer
from memories.api.outputs import memory_detail_data
from memories.api.shapes import MemoryDetailSerializer
from memories.models import Kind


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


def queue_item_data(item: ReviewItem) -> dict:
    return {
        **review_item_data(item),
        "client": item.client.external_ref,
        "score": item.score,
        "recommended": item.recommended,
        "summary": item.summary,
        "created_at": item.created_at.isoformat(),
    }


def _memory_data(memory, evidence) -> dict:
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


_OPEN = {
    **DECIDED_EXAMPLE,
    "state": "open",
    "decision": "",
    "reason": "",
    "decided_by": None,
    "decided_at": None,
    "client": "emma-clarke",
    "score": None,
    "recommended": False,
    "summary": "A new statement contradicts what memory holds.",
    "created_at": "2026-11-30T09:15:02+00:00",
}
QUEUE_EXAMPLE = {
    "count": 1,
    "page": 1,
    "pages": 1,
    "next": None,
    "previous": None,
    "results": [_OPEN],
}
_EVIDENCE = {
    "event": docs.EVENT_ID,
    "external_id": "msg-1001",
    "observed_at": "2026-11-30T09:15:00Z",
    "role": "extracted",
    "speaker": "client",
    "content": "Please call me, I never read email.",
}
DETAIL_EXAMPLE = {
    **_OPEN,
    "score_components": {},
    "memory_detail": {**docs.MEMORY_DETAIL, "evidence": [_EVIDENCE], "relations": []},
    "other_memory_detail": {
        **docs.MEMORY_DETAIL,
        "id": docs.OLD_ID,
        "content": "I prefer to be contacted by email.",
        "evidence": [{**_EVIDENCE, "content": "Email me, please."}],
        "relations": [],
    },
}
ITEM_ID_PARAMETER = OpenApiParameter(
    "item_id",
    type=OpenApiTypes.UUID,
    location=OpenApiParameter.PATH,
    description="The review item's id (a UUID), as the queue lists it.",
    examples=[OpenApiExample("a review item", value=DECIDED_EXAMPLE["id"])],
)


class ReviewQueueApi(BaseApiView):
    @extend_schema(
        parameters=[QueueInSerializer],
        responses={
            **docs.ok(QueueOutSerializer, "the open items, a page at a time", QUEUE_EXAMPLE),
            **docs.QUERY_ERRORS,
        },
        summary="The open items of the review queue (conflicts and promotions)",
        operation_id="review_list",
    )
    def get(self, request):
        """Supervisors and admins: the open items of the clients they see. ``client``,
        ``type``, ``kind`` and ``min_score`` filter; ``sort`` orders as the page does."""
        tenant = tenant_of(request)
        if not permissions.can_decide_review(request.user, tenant):
            raise PermissionDenied("The review queue is for supervisors and admins.")
        serializer = QueueInSerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        client = None
        if "client" in data:
            client = permissions.client_for_read(request.user, tenant, data["client"])
        items = open_items(
            permissions.reviewable(request.user, ReviewItem.objects.filter(tenant=tenant)),
            item_type=data.get("type"),
            client=client,
            kind=data.get("kind", ""),
            min_score=data.get("min_score"),
            sort=data["sort"],
        )
        paginator = Paginator(items, data["page_size"])
        if data["page"] > max(paginator.num_pages, 1):
            raise NotFound(f"Page {data['page']} does not exist: there are {paginator.num_pages}.")
        page = paginator.page(data["page"])
        return Response(
            {
                "count": paginator.count,
                "page": page.number,
                "pages": paginator.num_pages,
                "next": page.next_page_number() if page.has_next() else None,
                "previous": page.previous_page_number() if page.has_previous() else None,
                "results": [queue_item_data(item) for item in page],
            }
        )


class ReviewItemApi(BaseApiView):
    @extend_schema(
        parameters=[ITEM_ID_PARAMETER],
        responses={
            **docs.ok(QueueItemDetailSerializer, "the item and its memories", DETAIL_EXAMPLE),
            **docs.errors(401, 403, 404, 429),
        },
        summary="One review item, with both memories and their evidence",
        operation_id="review_retrieve",
    )
    def get(self, request, item_id):
        """Whatever its state; 403 for an advisor, who may see it but not decide it."""
        item = permissions.review_item_for_decision(
            request.user, ReviewItem.objects.filter(tenant=tenant_of(request)), item_id
        )
        item = (
            ReviewItem.objects.select_related(
                "client", "memory__client", "other_memory__client", "decided_by"
            )
            .filter(pk=item.pk)
            .get()
        )
        (card,) = review_cards([item])
        other = item.other_memory
        return Response(
            {
                **queue_item_data(item),
                "score_components": item.score_components or {},
                "memory_detail": _memory_data(item.memory, card.new_evidence),
                "other_memory_detail": _memory_data(other, card.old_evidence) if other else None,
            }
        )
