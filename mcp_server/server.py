"""The MCP server: the agent tools of ``GET /api/v1/tools/`` (same names, descriptions and
JSON schemas, from ``memories.api.tool_schemas``) and each client's profile and core
memories as resources. Transport-free: ``mcp_server.http`` serves it over Streamable
HTTP, ``mcp_server.stdio`` over stdio; each says whose API key a request carries.

A tool call is its API call (``mcp_server.calls``); recall and get_context answer the
model in lines (``mcp_server.answers``), the others in JSON, each with the API's answer as
structured content. A refusal, a throttle or bad input comes back as a tool error
(``is_error``) whose text is the API's message, with the API's ``{"error": {"code",
"message", "fields"}}`` as structured content. A database that
cannot be reached is a tool error too (code ``database_unavailable``, and ``retry_after``
in seconds), and, for resources, a JSON-RPC error with the same data.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcp_server.answers import OUTPUT_SCHEMAS, answer_text
from mcp_server.calls import Answer, BadArguments, Call, api_call_async, call_for, in_own_thread
from memories import permissions
from memories.api.errors import error_body
from memories.api.tool_schemas import READ_TOOLS, TOOLS_BY_NAME, tools_offered
from memories.middleware import DATABASE_ERRORS, database_trouble
from memories.services.tenancy.api_keys import InvalidApiKey, api_key_verify

KeyOf = Callable[[ServerRequestContext], str]

INSTRUCTIONS = (
    "memoryhub remembers what each client said and decided, across conversations. Before "
    "answering a client's message, call get_context with it and use what it returns. After "
    "each client message (or tool result, or decision) worth keeping, call remember with it, "
    "verbatim. Use recall to look up one topic. Say 'client' the same way in every call."
)
RESOURCES_PER_PAGE = 100
_SCHEME = "memoryhub://clients/"
_KINDS = {
    "profile": (
        "The client's profile",
        "Stable facts (preferences, relationships, facts) "
        "and recent activity (goals, decisions, episodes), as memoryhub keeps them.",
    ),
    "core": (
        "The client's core memories",
        "What is always relevant about the client: the "
        "core tier, at most 2 KB, to keep in every prompt.",
    ),
}


def _version() -> str:
    try:
        return version("memoryhub")
    except PackageNotFoundError:  # run from a checkout that was not installed
        return "0"


def mcp_tool(tool: dict) -> types.Tool:
    function = tool["function"]
    name = function["name"]
    return types.Tool(
        name=name,
        description=function["description"],
        input_schema=function["parameters"],
        output_schema=OUTPUT_SCHEMAS.get(name),
        annotations=types.ToolAnnotations(
            # Hosts may run the read-only tools (and read resources) without asking.
            read_only_hint=name in READ_TOOLS,
            destructive_hint=name == "forget",
            idempotent_hint=name in READ_TOOLS or name == "forget",
            open_world_hint=False,
        ),
    )


def tool_result(answer: Answer, tool: str = "", explained: bool = False) -> types.CallToolResult:
    """The API's answer as the tool's result: what the model reads (``answer_text``) and,
    beside it, the answer itself as structured content."""
    if answer.ok:
        return types.CallToolResult(
            content=[types.TextContent(text=answer_text(tool, answer.body, explained=explained))],
            structured_content=answer.body,
        )
    error = answer.error
    if "Retry-After" in answer.headers:  # throttled, or the database is unavailable
        error = {**error, "retry_after": int(answer.headers["Retry-After"])}
    return types.CallToolResult(
        content=[types.TextContent(text=error["message"])],
        structured_content={"error": error},
        is_error=True,
    )


def resource_uri(ref: str, kind: str) -> str:
    return f"{_SCHEME}{quote(ref, safe='')}/{kind}"


def _parse_uri(uri: str) -> tuple[str, str]:
    ref, _, kind = uri.removeprefix(_SCHEME).rpartition("/")
    if not uri.startswith(_SCHEME) or kind not in _KINDS or not ref:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown resource {uri!r}: memoryhub serves "
            f"{_SCHEME}{{client}}/profile and {_SCHEME}{{client}}/core.",
        )
    return unquote(ref), kind


def _unavailable(answer: Answer) -> MCPError:
    """The JSON-RPC error for an answer the database kept from being given (503)."""
    data = {**answer.error, "retry_after": int(answer.headers.get("Retry-After", "1"))}
    return MCPError(code=types.INTERNAL_ERROR, message=answer.error["message"], data=data)


def _visible_clients(raw_key: str, offset: int, limit: int) -> list[str]:
    """The references of the clients the key's user may read, a page of them."""
    try:
        key = api_key_verify(raw_key)
        permissions.role_remember(key.user, key.tenant, key.member_role)
        return list(
            permissions.clients_visible_to(key.user, key.tenant)
            .order_by("external_ref")
            .values_list("external_ref", flat=True)[offset : offset + limit]
        )
    except InvalidApiKey as exc:
        raise MCPError(code=types.INVALID_REQUEST, message=str(exc)) from exc
    except DATABASE_ERRORS as exc:
        trouble = database_trouble(exc)
        answer = Answer(
            503,
            error_body(trouble.code, trouble.message),
            {"Retry-After": str(trouble.retry_after)},
        )
        raise _unavailable(answer) from exc


_visible_clients_async = in_own_thread(_visible_clients)


def _writes(raw_key: str) -> bool:
    """Whether the key may write memory: its tool list, as ``GET /api/v1/tools/``, then
    offers the tools that write too."""
    try:
        key = api_key_verify(raw_key)
    except InvalidApiKey:
        return False
    permissions.role_remember(key.user, key.tenant, key.member_role)
    return permissions.can_write_memories(key.user, key.tenant)


_writes_async = in_own_thread(_writes)


def build_server(key_of: KeyOf) -> Server:
    """The MCP server; ``key_of(ctx)`` is the raw API key a request acts with."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        writes = await _writes_async(key_of(ctx))
        return types.ListToolsResult(tools=[mcp_tool(t) for t in tools_offered(writes=writes)])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown tool {params.name!r}; the tools are {', '.join(TOOLS_BY_NAME)}.",
            )
        try:
            call = call_for(tool, params.arguments or {})
        except BadArguments as exc:
            return tool_result(
                Answer(
                    400,
                    {"error": {"code": "invalid", "message": exc.message, "fields": exc.fields}},
                )
            )
        answer = await api_call_async(call, raw_key=key_of(ctx))
        explained = (params.arguments or {}).get("explain") is True
        return tool_result(answer, params.name, explained)

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        offset = int(params.cursor) if params and params.cursor and params.cursor.isdigit() else 0
        refs = await _visible_clients_async(key_of(ctx), offset, RESOURCES_PER_PAGE + 1)
        page = refs[:RESOURCES_PER_PAGE]
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=resource_uri(ref, kind),
                    name=f"{ref} · {kind}",
                    title=f"{title} ({ref})",
                    description=description,
                    mime_type="application/json",
                )
                for ref in page
                for kind, (title, description) in _KINDS.items()
            ],
            next_cursor=str(offset + RESOURCES_PER_PAGE) if len(refs) > len(page) else None,
        )

    async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=f"{_SCHEME}{{client}}/{kind}",
                    name=f"client-{kind}",
                    title=title,
                    description=description,
                    mime_type="application/json",
                )
                for kind, (title, description) in _KINDS.items()
            ]
        )

    async def read_resource(
        ctx, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        ref, kind = _parse_uri(str(params.uri))
        call = Call("GET", f"/api/v1/clients/{quote(ref, safe='')}/profile/")
        answer = await api_call_async(call, raw_key=key_of(ctx))
        if answer.status == 503:
            raise _unavailable(answer)
        if not answer.ok:
            # A client the key may not see is "not found", as in the API (the 2026-07-28
            # specification answers an unknown resource with invalid params).
            raise MCPError(
                code=types.INVALID_PARAMS, message=answer.error["message"], data=answer.error
            )
        content: dict[str, Any] = {"client": answer.body["client"], kind: answer.body[kind]}
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=str(params.uri),
                    mime_type="application/json",
                    text=json.dumps(content, ensure_ascii=False),
                )
            ]
        )

    return Server(
        "memoryhub",
        version=_version(),
        title="memoryhub",
        description="Memory of each client across conversations: remember, recall, context.",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
