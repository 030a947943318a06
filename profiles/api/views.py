"""POST /api/v1/context/: profile, core and relevant memories, and prompt-ready text;
GET /api/v1/clients/{ref}/profile/: the profile and core memories alone."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, explain_asked, tenant_of
from memories.api.inputs import ContextInSerializer
from memories.api.outputs import datetime_out, hit_data
from memories.api.shapes import ClientProfileOutSerializer, ContextOutSerializer
from profiles.services.context import client_profile, context_build


def _core_data(memory, disputed_by: dict) -> dict:
    return {
        "id": str(memory.pk),
        "content": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "disputed_by": disputed_by.get(str(memory.pk), []),
    }


def _coming_up_data(memory, disputed_by: dict) -> dict:
    return {
        **_core_data(memory, disputed_by),
        "occurred_on": memory.occurred_on.isoformat(),
        "occurred_precision": memory.occurred_precision,
        "expires_at": datetime_out(memory.expires_at),
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
        parameters=[docs.EXPLAIN_PARAMETER],
        examples=[docs.CONTEXT_REQUEST],
        responses={
            **docs.ok(
                ContextOutSerializer,
                "ready for the prompt",
                docs.CONTEXT_RESULT,
                more={"ready for the prompt, explained": docs.CONTEXT_EXPLAINED},
            ),
            **docs.BODY_ERRORS,
        },
        summary="Profile, core and relevant memories, and prompt-ready text",
        operation_id="context",
    )
    def post(self, request):
        serializer = ContextInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        explain = explain_asked(request, data)
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
        answer = {
            "core": [_core_data(m, disputed_by) for m in context["core"]],
            "memories": [
                {
                    **hit_data(h, explain=explain),
                    "disputed_by": disputed_by.get(str(h.memory.pk), []),
                }
                for h in context["hits"]
            ],
            "coming_up": [_coming_up_data(m, disputed_by) for m in context["coming_up"]],
            "text": context["text"],
        }
        if explain:
            # The profile's entries are in ``text``, as the agent reads them; as data they
            # are the profile call's (GET /api/v1/clients/{ref}/profile/), or asked here.
            answer = {"profile": _profile_data(context["profile"], disputed_by), **answer}
        return Response(answer)


class ClientProfileApi(BaseApiView):
    """What memoryhub holds as the client's profile, and their core memories: the part of
    the context that does not depend on a message (the MCP server's resources)."""

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        responses={
            **docs.ok(ClientProfileOutSerializer, "the profile", docs.CLIENT_PROFILE),
            **docs.errors(401, 404, 429),
        },
        summary="A client's profile (stable facts, recent activity) and core memories",
        operation_id="client_profile",
    )
    def get(self, request, ref):
        client = permissions.client_for_read(request.user, tenant_of(request), ref)
        held = client_profile(user=request.user, client=client)
        return Response(
            {
                "client": client.external_ref,
                "profile": _profile_data(held["profile"], held["disputed_by"]),
                "core": [_core_data(m, held["disputed_by"]) for m in held["core"]],
            }
        )
