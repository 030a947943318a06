"""The agent tools' function-calling schemas, served for agents to load."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, tenant_of
from memories.api.tool_schemas import tools_offered


class ToolsApi(BaseApiView):
    """OpenAI function-calling schemas for the agent tools the caller may call (a key
    that may not write gets the read tools alone, as over MCP); ``x-memoryhub`` says which
    API call each one is (path parameters in braces come from the arguments)."""

    @extend_schema(
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "the tools", docs.TOOLS),
            **docs.errors(401, 403, 429),
        },
        summary="OpenAI function-calling schemas of the agent tools",
        operation_id="tools",
    )
    def get(self, request):
        writes = permissions.can_write_memories(request.user, tenant_of(request))
        return Response({"tools": tools_offered(writes=writes)})
