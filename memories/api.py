"""Agent API (v1). Thin views: input serializer → service or selector → output."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.models import ApiKey, Membership
from memories.selectors import health_report
from memories.serializers import BatchInSerializer, EventInSerializer, ingest_result_data
from memories.services.ingest import EventInput, event_ingest, events_ingest


class BaseApiView(APIView):
    """Authentication, permissions and error format come from REST_FRAMEWORK settings."""


class HealthApi(BaseApiView):
    """Database, pgvector, embedding providers and queue. Open to probes; a caller with a
    key also learns who the key belongs to."""

    permission_classes = [permissions.AllowAny]

    def get(self, request):
        report = health_report()
        report["caller"] = None
        if request.user.is_authenticated:
            key = request.auth if hasattr(request.auth, "tenant") else None
            membership = (
                Membership.objects.filter(user=request.user, tenant=key.tenant).first()
                if key
                else None
            )
            report["caller"] = {
                "user": request.user.get_username(),
                "tenant": key.tenant.slug if key else None,
                "role": membership.role if membership else None,
                "key": key.prefix if key else None,
            }
        status = 200 if report["status"] != "error" else 503
        return Response(report, status=status)


def _tenant_of(request):
    key = request.auth
    if isinstance(key, ApiKey):
        return key.tenant
    tenants = {m.tenant for m in request.user.memberships.select_related("tenant")}
    if len(tenants) != 1:
        raise PermissionDenied("Use an API key: it says which tenant the request is for.")
    return tenants.pop()


def _actor_label(request) -> str:
    key = request.auth
    if isinstance(key, ApiKey):
        return f"{request.user.get_username()} (key {key.prefix})"
    return request.user.get_username()


def _event_input(data: dict) -> EventInput:
    return EventInput(**data)


class EventsApi(BaseApiView):
    """Store one event and the memories it teaches."""

    def post(self, request):
        serializer = EventInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = event_ingest(
            user=request.user,
            tenant=_tenant_of(request),
            item=_event_input(serializer.validated_data),
            actor_label=_actor_label(request),
        )
        headers = {} if result.created else {"Idempotent-Replayed": "true"}
        return Response(ingest_result_data(result), status=201, headers=headers)


class EventsBatchApi(BaseApiView):
    """Up to MAX_BATCH_EVENTS events, all stored or none; one answer per event, in order."""

    def post(self, request):
        serializer = BatchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        results = events_ingest(
            user=request.user,
            tenant=_tenant_of(request),
            items=[_event_input(item) for item in serializer.validated_data["events"]],
            actor_label=_actor_label(request),
        )
        return Response({"results": [ingest_result_data(r) for r in results]}, status=201)
