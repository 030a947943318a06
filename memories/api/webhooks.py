"""A tenant's webhook endpoints, for its supervisors: list, register (the answer holds the
signing secret, shown this once), remove. Deliveries are in the admin."""

from __future__ import annotations

import re

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.errors import error_body
from memories.api.fields import StrictCharField, StrictSerializer
from memories.models import WebhookEndpoint, WebhookEvent
from memories.services.webhooks.endpoints import (
    URL_MESSAGE,
    URL_PATTERN,
    webhook_endpoint_create,
    webhook_endpoint_delete,
)

REFUSED = "Only a supervisor may manage the tenant's webhooks."


class WebhookInSerializer(StrictSerializer):
    url = StrictCharField(
        max_length=2000,
        whole_pattern=URL_PATTERN,
        help_text="The http(s) URL that receives the deliveries (POST, JSON).",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEvent.choices),
        allow_empty=False,
        min_length=1,  # what the schema states (minItems) of allow_empty
        max_length=len(WebhookEvent.values),
        help_text="The events to send there.",
    )
    description = StrictCharField(max_length=200, required=False, default="", allow_blank=True)

    def validate_url(self, value: str) -> str:
        if not re.fullmatch(URL_PATTERN, value):
            raise serializers.ValidationError(URL_MESSAGE)
        return value


class WebhookOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    description = serializers.CharField()
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookOutSerializer):
    secret = serializers.CharField(help_text="Signs every delivery; shown only here.")


class WebhookListOutSerializer(serializers.Serializer):
    results = WebhookOutSerializer(many=True)


def webhook_data(endpoint: WebhookEndpoint) -> dict:
    return {
        "id": str(endpoint.pk),
        "url": endpoint.url,
        "events": list(endpoint.events),
        "description": endpoint.description,
        "active": endpoint.active,
        "created_at": endpoint.created_at.isoformat(),
    }


EXAMPLE = {
    "id": "3b6f1d2e-8c4a-4f7e-9d1b-2a3c4e5f6a7b",
    "url": "https://crm.example.com/hooks/memoryhub",
    "events": ["memory.added", "conflict.opened"],
    "description": "CRM sync",
    "active": True,
    "created_at": "2026-12-01T09:00:00+00:00",
}
ID_PARAMETER = OpenApiParameter(
    "endpoint_id",
    type=OpenApiTypes.UUID,
    location=OpenApiParameter.PATH,
    description="The endpoint's id (a UUID), as the list gives it.",
    examples=[OpenApiExample("an endpoint", value=EXAMPLE["id"])],
)


class WebhooksApi(BaseApiView):
    def _tenant(self, request):
        tenant = tenant_of(request)
        if not permissions.can_manage_webhooks(request.user, tenant):
            raise PermissionDenied(REFUSED)
        return tenant

    @extend_schema(
        responses={
            **docs.ok(WebhookListOutSerializer, "the endpoints", {"results": [EXAMPLE]}),
            **docs.errors(401, 403, 429),
        },
        summary="The tenant's webhook endpoints (supervisors)",
        operation_id="webhooks_list",
    )
    def get(self, request):
        tenant = self._tenant(request)
        endpoints = permissions.scoped(
            request.user, WebhookEndpoint.objects.filter(tenant=tenant), tenant
        )
        return Response({"results": [webhook_data(e) for e in endpoints]})

    @extend_schema(
        request=WebhookInSerializer,
        examples=[
            docs.request_example(
                "memory and conflict events to a CRM",
                {k: EXAMPLE[k] for k in ("url", "events", "description")},
            )
        ],
        responses={
            **docs.ok(
                WebhookCreatedSerializer,
                "registered; keep the secret to check signatures",
                {**EXAMPLE, "secret": "whsec_Jd8w3kq1v0A9Xb5rT2mN7pL4sE6yU1cZ8hR3gF0a"},
                201,
            ),
            **docs.errors(400, 401, 403, 413, 429),
            409: docs.error(
                409,
                "The tenant already has as many endpoints as it may: remove one first.",
                error_body(
                    "too_many_endpoints",
                    "This tenant has 20 webhook endpoints, the most it may have: remove one "
                    "before adding another.",
                ),
            ),
        },
        summary="Register a webhook endpoint (supervisors)",
        operation_id="webhooks_create",
    )
    def post(self, request):
        tenant = self._tenant(request)
        serializer = WebhookInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = webhook_endpoint_create(
            tenant=tenant,
            actor=request.user,
            actor_label=actor_label(request),
            **serializer.validated_data,
        )
        return Response({**webhook_data(endpoint), "secret": endpoint.secret}, status=201)


class WebhookApi(BaseApiView):
    @extend_schema(
        parameters=[ID_PARAMETER],
        responses={
            **docs.ok(WebhookOutSerializer, "removed: nothing more is sent to it", EXAMPLE),
            **docs.errors(401, 404, 429),
        },
        summary="Remove a webhook endpoint and its deliveries (supervisors)",
        operation_id="webhooks_delete",
    )
    def delete(self, request, endpoint_id):
        tenant = tenant_of(request)
        # The key's tenant only, whoever holds it (a superuser's key too).
        endpoints = WebhookEndpoint.objects.filter(tenant=tenant, pk=endpoint_id)
        endpoint = permissions.scoped(request.user, endpoints, tenant).first()
        if endpoint is None:
            raise Http404("No webhook endpoint with that id that you can see.")
        data = webhook_data(endpoint)
        webhook_endpoint_delete(
            endpoint=endpoint, actor=request.user, actor_label=actor_label(request)
        )
        return Response(data)
