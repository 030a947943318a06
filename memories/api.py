"""Agent API (v1). Thin views: input serializer → service or selector → output."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions as drf_permissions
from rest_framework.response import Response

from memories import api_docs as docs
from memories import permissions
from memories.api_base import BaseApiView, actor_label, tenant_of
from memories.models import ApiKey
from memories.response_shapes import (
    BatchResultSerializer,
    HistoryOutSerializer,
    IngestResultSerializer,
    MemoryDetailSerializer,
    MemoryListOutSerializer,
    SearchOutSerializer,
)
from memories.selectors import health_report
from memories.selectors_memory import evidence_for, relations_of, versions_of
from memories.serializers import (
    BatchInSerializer,
    EventInSerializer,
    FeedbackInSerializer,
    ForgetInSerializer,
    MemoryListInSerializer,
    SearchInSerializer,
    hit_data,
    ingest_result_data,
    memory_detail_data,
)
from memories.services.ingest import EventInput, event_ingest, events_ingest
from memories.services.lifecycle import memory_feedback, memory_forget
from memories.services.retrieval import Filters, memories_search
from memories.tools import TOOLS


class HealthApi(BaseApiView):
    """Database, pgvector, embedding providers and queue. Open to probes; a caller with a
    key also learns who the key belongs to."""

    permission_classes = [drf_permissions.AllowAny]

    @extend_schema(
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "healthy, with the caller's key", docs.HEALTH),
            **docs.ok(OpenApiTypes.OBJECT, "the database is down", docs.HEALTH_DOWN, 503),
            **docs.errors(401, 429),
        },
        auth=[],
        summary="Database, pgvector, embedding providers and queue",
        operation_id="health",
    )
    def get(self, request):
        report = health_report()
        report["caller"] = None
        if request.user.is_authenticated:
            key = request.auth if isinstance(request.auth, ApiKey) else None
            report["caller"] = {
                "user": request.user.get_username(),
                "tenant": key.tenant.slug if key else None,
                "role": permissions.role_in(request.user, key.tenant) if key else None,
                "key": key.prefix if key else None,
            }
        status = 200 if report["status"] != "error" else 503
        return Response(report, status=status)


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


def _filters(data: dict, user, client) -> Filters:
    tier = tuple(data.get("tier") or ())
    status = tuple(data.get("status") or ())
    as_of = data.get("as_of")
    if tiers := permissions.readable_tiers(user, client):
        # A read-only persona: only what it may read, whatever it asked.
        tier = tuple(t for t in tier if t in tiers) or tiers
        statuses = permissions.readable_statuses(user, client)
        status = tuple(s for s in status if s in statuses) or statuses
        as_of = None
    return Filters(
        tier=tier,
        kind=tuple(data.get("kind") or ()),
        status=status,
        tags=tuple(data.get("tags") or ()),
        since=data.get("since"),
        until=data.get("until"),
        as_of=as_of,
    )


class SearchApi(BaseApiView):
    """The memories most relevant to ``query`` for one client, with score components."""

    read_methods = ("POST", "OPTIONS")

    @extend_schema(
        request=SearchInSerializer,
        examples=[docs.SEARCH_REQUEST],
        responses={
            **docs.ok(SearchOutSerializer, "ranked", docs.SEARCH_RESULT),
            **docs.BODY_ERRORS,
        },
        summary="The memories most relevant to a query",
        operation_id="search",
    )
    def post(self, request):
        serializer = SearchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        tenant = tenant_of(request)
        client = permissions.client_for_read(request.user, tenant, data["client"])
        hits = memories_search(
            client=client,
            query=data["query"],
            k=data["k"],
            filters=_filters(data["filters"], request.user, client),
            with_evidence=True,
        )
        return Response({"results": [hit_data(h) for h in hits]})


class MemoryApi(BaseApiView):
    @extend_schema(
        request=ForgetInSerializer,
        parameters=[docs.MEMORY_ID_PARAMETER],
        examples=[docs.FORGET_REQUEST],
        responses={
            **docs.ok(MemoryDetailSerializer, "forgotten", docs.FORGOTTEN),
            **docs.BODY_ERRORS,
        },
        summary="Forget a memory (soft delete)",
        operation_id="memory_forget",
    )
    def delete(self, request, memory_id):
        """Forget: the memory leaves every answer (soft delete, audited)."""
        memory = permissions.memory_for_write(request.user, tenant_of(request), memory_id)
        serializer = ForgetInSerializer(data=request.data or {})
        serializer.is_valid(raise_exception=True)
        memory = memory_forget(
            memory=memory,
            actor=request.user,
            actor_label=actor_label(request),
            reason=serializer.validated_data["reason"],
        )
        return Response(memory_detail_data(memory, evidence=[], relations=[]))

    @extend_schema(
        parameters=[docs.MEMORY_ID_PARAMETER],
        responses={
            **docs.ok(MemoryDetailSerializer, "the memory", docs.MEMORY_DETAIL),
            **docs.ONE_MEMORY_ERRORS,
        },
        summary="One memory with evidence and relations",
        operation_id="memory_retrieve",
    )
    def get(self, request, memory_id):
        tenant = tenant_of(request)
        memory = permissions.memory_for_read(request.user, tenant, memory_id)
        relations = relations_of(memory)
        visible = set(
            permissions.memories_visible_to(request.user, tenant)
            .filter(pk__in=[r["memory"].pk for r in relations])
            .values_list("pk", flat=True)
        )
        return Response(
            memory_detail_data(
                memory,
                evidence=evidence_for([memory.pk]).get(memory.pk, []),
                relations=[r for r in relations if r["memory"].pk in visible],
            )
        )


class MemoryListApi(BaseApiView):
    """The client's newest live memories (what an agent lists before asking)."""

    @extend_schema(
        parameters=[MemoryListInSerializer, docs.CLIENT_PARAMETER],
        responses={
            **docs.ok(MemoryListOutSerializer, "newest first", docs.MEMORY_LIST),
            **docs.QUERY_ERRORS,
        },
        summary="The newest live memories of a client",
        operation_id="memories_list",
    )
    def get(self, request):
        serializer = MemoryListInSerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        tenant = tenant_of(request)
        client = permissions.client_for_read(request.user, tenant, data["client"])
        memories = (
            permissions.memories_visible_to(request.user, tenant).live().filter(client=client)
        )
        if "kind" in data:
            memories = memories.filter(kind=data["kind"])
        if "tier" in data:
            memories = memories.filter(tier=data["tier"])
        memories = memories.select_related("client").order_by("-last_seen_at")[: data["limit"]]
        return Response(
            {"results": [memory_detail_data(m, evidence=[], relations=[]) for m in memories]}
        )


class MemoryFeedbackApi(BaseApiView):
    @extend_schema(
        request=FeedbackInSerializer,
        parameters=[docs.MEMORY_ID_PARAMETER],
        examples=[docs.FEEDBACK_REQUEST],
        responses={
            **docs.ok(MemoryDetailSerializer, "noted", {**docs.MEMORY_DETAIL, "confidence": 0.8}),
            **docs.BODY_ERRORS,
        },
        summary="Say whether a memory helped",
        operation_id="memory_feedback",
    )
    def post(self, request, memory_id):
        memory = permissions.memory_for_write(request.user, tenant_of(request), memory_id)
        serializer = FeedbackInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        memory = memory_feedback(
            memory=memory,
            useful=serializer.validated_data["useful"],
            note=serializer.validated_data["note"],
            actor=request.user,
            actor_label=actor_label(request),
        )
        return Response(memory_detail_data(memory, evidence=[], relations=[]))


class MemoryHistoryApi(BaseApiView):
    """Every version of a memory (linked by ``updates``), oldest first."""

    @extend_schema(
        parameters=[docs.MEMORY_ID_PARAMETER],
        responses={
            **docs.ok(HistoryOutSerializer, "oldest first", docs.HISTORY),
            **docs.ONE_MEMORY_ERRORS,
        },
        summary="Every version of a memory",
        operation_id="memory_history",
    )
    def get(self, request, memory_id):
        tenant = tenant_of(request)
        memory = permissions.memory_for_read(request.user, tenant, memory_id)
        visible = set(
            permissions.memories_visible_to(request.user, tenant)
            .filter(pk__in=[v.pk for v in versions_of(memory)])
            .values_list("pk", flat=True)
        )
        versions = [v for v in versions_of(memory) if v.pk in visible]
        return Response(
            {
                "versions": [
                    {
                        **memory_detail_data(v, evidence=[], relations=[]),
                        "current": v.pk == memory.pk,
                    }
                    for v in versions
                ]
            }
        )


class ToolsApi(BaseApiView):
    """OpenAI function-calling schemas for the agent tools; ``x-memoryhub`` says which API
    call each one is (path parameters in braces come from the arguments)."""

    @extend_schema(
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "the tools", docs.TOOLS),
            **docs.errors(401, 403, 429),
        },
        summary="OpenAI function-calling schemas of the agent tools",
        operation_id="tools",
    )
    def get(self, request):
        return Response({"tools": TOOLS})
