"""POST /api/v1/review/{id}/decide/: the review queue's decisions for agents and scripts,
through the same service as the page's buttons."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from curation.models import ReviewItem
from curation.services.review import review_decide
from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.errors import error_body
from memories.api.fields import StrictCharField, StrictSerializer


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
            request.user, ReviewItem.objects.filter(tenant=tenant), item_id
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
