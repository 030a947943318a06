"""One memory (read, forget, feedback, history) and the newest memories of a client."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.inputs import FeedbackInSerializer, ForgetInSerializer, MemoryListInSerializer
from memories.api.outputs import memory_detail_data
from memories.api.shapes import (
    HistoryOutSerializer,
    MemoryDetailSerializer,
    MemoryListOutSerializer,
)
from memories.selectors.memory import evidence_for, linked_for
from memories.services.write.lifecycle import memory_feedback, memory_forget


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
        linked = linked_for(request.user, memory, versions=False)
        return Response(
            memory_detail_data(
                memory,
                evidence=evidence_for([memory.pk]).get(memory.pk, []),
                relations=linked.relations,
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
            permissions.memories_visible_to(request.user, tenant).current().filter(client=client)
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
        versions = linked_for(request.user, memory, relations=False).versions
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
