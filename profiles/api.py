"""POST /api/v1/context/: profile, core and relevant memories, and prompt-ready text."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, tenant_of
from memories.api.inputs import ContextInSerializer
from memories.api.outputs import hit_data
from memories.api.shapes import ContextOutSerializer
from profiles.services.context import context_build


def _core_data(memory, disputed_by: dict) -> dict:
    return {
        "id": str(memory.pk),
        "content": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "disputed_by": disputed_by.get(str(memory.pk), []),
    }


def _profile_data(profile: dict, disputed_by: dict) -> dict:
    return {
        half: [{**e, "disputed_by": disputed_by.get(e["memory"], [])} for e in entries]
        for half, entries in profile.items()
    }


class ContextApi(BaseApiView):
    read_methods = ("POST", "OPTIONS")

    @extend_schema(
        request=ContextInSerializer,
        examples=[docs.CONTEXT_REQUEST],
        responses={
            **docs.ok(ContextOutSerializer, "ready for the prompt", docs.CONTEXT_RESULT),
            **docs.BODY_ERRORS,
        },
        summary="Profile, core and relevant memories, and prompt-ready text",
        operation_id="context",
    )
    def post(self, request):
        serializer = ContextInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        client = permissions.client_for_read(request.user, tenant_of(request), data["client"])
        context = context_build(
            user=request.user,
            client=client,
            message=data["message"],
            budget_chars=data["budget_chars"],
            k=data["k"],
            with_evidence=True,
        )
        disputed_by = context["disputed_by"]
        return Response(
            {
                "profile": _profile_data(context["profile"], disputed_by),
                "core": [_core_data(m, disputed_by) for m in context["core"]],
                "memories": [
                    {**hit_data(h), "disputed_by": disputed_by.get(str(h.memory.pk), [])}
                    for h in context["hits"]
                ],
                "text": context["text"],
            }
        )
