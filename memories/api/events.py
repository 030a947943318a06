"""Events in: one, or a batch stored all or nothing; each answer says what memory learnt."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.inputs import BatchInSerializer, EventInSerializer
from memories.api.outputs import ingest_result_data
from memories.api.shapes import (
    BatchResultSerializer,
    IngestResultSerializer,
)
from memories.services.write.ingest import EventInput, event_ingest, events_ingest


def _event_input(data: dict) -> EventInput:
    return EventInput(**data)


class EventsApi(BaseApiView):
    """Store one event and the memories it teaches."""

    @extend_schema(
        request=EventInSerializer,
        examples=[docs.EVENT_REQUEST],
        responses={
            **docs.ok(IngestResultSerializer, "stored", docs.INGEST_RESULT, 201),
            **docs.BODY_ERRORS,
            **docs.IDEMPOTENCY_CONFLICT,
        },
        summary="Store one event and the memories it teaches",
        operation_id="events_create",
    )
    def post(self, request):
        serializer = EventInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = event_ingest(
            user=request.user,
            tenant=tenant_of(request),
            item=_event_input(serializer.validated_data),
            actor_label=actor_label(request),
        )
        headers = {} if result.created else {"Idempotent-Replayed": "true"}
        return Response(ingest_result_data(result), status=201, headers=headers)


class EventsBatchApi(BaseApiView):
    """Up to MAX_BATCH_EVENTS events, all stored or none; one answer per event, in order."""

    @extend_schema(
        request=BatchInSerializer,
        examples=[docs.BATCH_REQUEST],
        responses={
            **docs.ok(BatchResultSerializer, "all stored", docs.BATCH_RESULT, 201),
            **docs.BODY_ERRORS,
            **docs.IDEMPOTENCY_CONFLICT,
        },
        summary="Store up to 500 events, all or nothing",
        operation_id="events_batch",
    )
    def post(self, request):
        serializer = BatchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        results = events_ingest(
            user=request.user,
            tenant=tenant_of(request),
            items=[_event_input(item) for item in serializer.validated_data["events"]],
            actor_label=actor_label(request),
        )
        return Response({"results": [ingest_result_data(r) for r in results]}, status=201)
