"""memoryhub's agent tools for the OpenAI Agents SDK (``pip install
'memoryhub-client[openai-agents]'``): ``Agent(tools=memoryhub_tools(hub))``.

The tools are the server's own (``GET /api/v1/tools/``: the same names, descriptions and
JSON schemas as its MCP server), each run through the typed client. Pass ``client=`` to
bind the tools to one client: the model then never names it (it leaves the schemas). A
refusal (a 404, a 429…) goes back to the model as the API's message, so it can act on it;
anything else fails the run.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool, RunContextWrapper, Tool

from memoryhub_client.async_client import AsyncMemoryHub
from memoryhub_client.client import MemoryHub
from memoryhub_client.errors import MemoryHubError

Hub = MemoryHub | AsyncMemoryHub


def _runs(hub: Hub) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """Tool name → the client call it is (``x-memoryhub`` names the same API call)."""
    return {
        "remember": lambda a: hub.add_event(**a),
        "recall": lambda a: hub.search(a.pop("client"), a.pop("query"), **a),
        "get_context": lambda a: hub.context(a.pop("client"), a.pop("message"), **a),
        "get_memory": lambda a: hub.get_memory(a["memory_id"]),
        "list_recent": lambda a: hub.list_memories(a.pop("client"), **a),
        "forget": lambda a: hub.forget(a["memory_id"], reason=a.get("reason", "")),
        "give_feedback": lambda a: hub.feedback(
            a["memory_id"], useful=a["useful"], note=a.get("note", "")
        ),
    }


def _bound(parameters: dict[str, Any]) -> dict[str, Any]:
    """The schema without ``client``, for tools bound to one client."""
    schema = copy.deepcopy(parameters)
    schema["properties"].pop("client", None)
    schema["required"] = [name for name in schema.get("required", []) if name != "client"]
    return schema


def memoryhub_tools(
    hub: Hub, *, client: str | None = None, schemas: list[dict[str, Any]] | None = None
) -> list[Tool]:
    """The Agents SDK tools for ``hub``'s server. ``schemas`` defaults to
    ``hub.tools()`` (an ``AsyncMemoryHub`` needs them passed: ``await hub.tools()``)."""
    if schemas is None:
        if not isinstance(hub, MemoryHub):
            raise TypeError("With an AsyncMemoryHub, pass schemas=await hub.tools().")
        schemas = hub.tools()
    runs = _runs(hub)
    tools: list[Tool] = []
    for schema in schemas:
        function = schema["function"]
        if function["name"] not in runs:
            continue  # a tool this client does not know yet
        parameters = function["parameters"]
        tools.append(
            FunctionTool(
                name=function["name"],
                description=function["description"],
                params_json_schema=_bound(parameters) if client else parameters,
                on_invoke_tool=_invoker(hub, runs[function["name"]], client),
                # Optional arguments: strict mode would make the model send every one.
                strict_json_schema=False,
            )
        )
    return tools


def _invoker(
    hub: Hub, run: Callable[[dict[str, Any]], Any], client: str | None
) -> Callable[[RunContextWrapper[Any], str], Awaitable[str]]:
    async def invoke(context: RunContextWrapper[Any], arguments: str) -> str:
        args = json.loads(arguments or "{}")
        if client is not None:
            args["client"] = client
        try:
            if isinstance(hub, AsyncMemoryHub):
                answer = await run(args)
            else:  # a blocking call: off the event loop
                answer = await asyncio.to_thread(run, args)
        except MemoryHubError as exc:
            error = {"code": exc.code, "message": exc.message, "fields": exc.fields}
            return json.dumps({"error": error}, ensure_ascii=False)
        return json.dumps(answer, ensure_ascii=False)

    return invoke
