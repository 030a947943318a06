"""The review queue for scripts and agents' supervisors: GET /api/v1/review/ (the open
items, filtered, sorted and paged as the page shows them, ``curation.selectors``), GET
/api/v1/review/{id}/ (one item with both memories and their evidence) and POST
/api/v1/review/{id}/decide/ (through the same service as the page's buttons). One module:
the three calls share a base view, an item shape and the decide call's permissions."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from curation.api.serializers import (
    DecisionInSerializer,
    QueueInSerializer,
    QueueItemDetailSerializer,
    QueueOutSerializer,
    ReviewItemOutSerializer,
    queue_item_data,
    review_item_data,
    review_memory_data,
)
from curation.models import ReviewItem
from curation.selectors import open_items, review_cards
from curation.services.review import review_decide
from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.errors import error_body

DECIDED_EXAMPLE = {
    "id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "type": "conflict",
    "state": "decided",
    "decision": "accept_new",
    "reason": "The client confirmed it by phone.",
    "memory": docs.MEMORY_ID,
    "other_memory": docs.OLD_ID,
    "decided_by": "supervisor",
    "decided_at": "2026-11-30T16:39:00+00:00",
}
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
        if not permissions.can_decide_reviews(request.user, tenant):
            raise PermissionDenied(permissions.REVIEWS_MESSAGE)
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
        """Whatever its state; 403 for a role that decides no reviews, whatever the id."""
        tenant = tenant_of(request)
        item = permissions.review_item_for_decision(
            request.user, ReviewItem.objects.all(), item_id, tenant
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
                "memory_detail": review_memory_data(item.memory, card.new_evidence),
                "other_memory_detail": (
                    review_memory_data(other, card.old_evidence) if other else None
                ),
            }
        )


class ReviewDecideApi(BaseApiView):
    @extend_schema(
        request=DecisionInSerializer,
        parameters=[
            OpenApiParameter(
                "item_id",
                type=OpenApiTypes.UUID,
                location=OpenApiParameter.PATH,
                description="The review item's id (a UUID), as the review queue shows it.",
                examples=[OpenApiExample("a review item", value=DECIDED_EXAMPLE["id"])],
            )
        ],
        examples=[
            docs.request_example(
                "accept the newer statement",
                {"decision": "accept_new", "reason": "The client confirmed it by phone."},
            )
        ],
        responses={
            **docs.ok(ReviewItemOutSerializer, "decided", DECIDED_EXAMPLE),
            **docs.errors(400, 401, 403, 404, 409, 413, 429),
        },
        summary="Decide a conflict or a promotion waiting in the review queue",
        operation_id="review_decide",
    )
    def post(self, request, item_id):
        """A supervisor's decision. 409 when the item was already closed, or when its
        memories changed meanwhile (it is then marked obsolete and nothing is decided)."""
        tenant = tenant_of(request)
        item = permissions.review_item_for_decision(
            request.user, ReviewItem.objects.all(), item_id, tenant
        )
        serializer = DecisionInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item = review_decide(
            item=item,
            decision=serializer.validated_data["decision"],
            reason=serializer.validated_data["reason"],
            actor=request.user,
            actor_label=actor_label(request),
        )
        if item.state == ReviewItem.State.OBSOLETE:
            return Response(
                error_body("obsolete", f"Nothing was decided: {item.reason}."), status=409
            )
        return Response(review_item_data(item))
