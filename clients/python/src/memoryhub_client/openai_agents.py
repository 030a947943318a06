"""memoryhub's agent tools for the OpenAI Agents SDK (``pip install
'memoryhub-client[openai-agents]'``): ``Agent(tools=memoryhub_tools(hub))``, and
``MemoryHubSession``, a ``Session`` that keeps a conversation's items in memoryhub
(``Runner.run(agent, text, session=MemoryHubSession("call-42", hub, client="emma"))``).

The tools are the server's own (``GET /api/v1/tools/``: the same names, descriptions and
JSON schemas as its MCP server), each run through the typed client. Pass ``client=`` to
bind the tools to one client: the model then never names it (it leaves the schemas). A
refusal (a 404, a 429…) goes back to the model as the API's message, so it can act on it;
anything else fails the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from agents import FunctionTool, RunContextWrapper, Tool
from agents.memory import SessionSettings

from memoryhub_client.async_client import AsyncMemoryHub
from memoryhub_client.client import MemoryHub
from memoryhub_client.errors import MemoryHubError, NotFound

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


_PAGE = 200  # the API's largest page of items
_ROLES = {"user": "client"}  # the conversation's user is the client memoryhub remembers


def _words(item: dict[str, Any]) -> str | None:
    """An item's words: a message's text (or its text parts), else None."""
    content = item.get("content")
    if isinstance(content, str):
        return content if content.strip() else None
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        text = "\n".join(p for p in parts if isinstance(p, str))
        return text if text.strip() and len(parts) == len(content) else None
    return None


class MemoryHubSession:
    """The SDK's ``Session`` protocol kept in memoryhub: each item a conversation adds is
    an event about ``client`` (a message's words as its content, where memoryhub withholds
    secrets and learns what the client says; other items, such as tool calls, as JSON of
    source ``tool``), a version of the item ``[namespace, session_id, <sequence>]``. Items
    come back in the order they were added (the sequence is the time they were added, in
    nanoseconds); ``pop_item`` and ``clear_session`` delete items, which forgets what they
    taught. A message's words come back as stored: a secret in them withheld."""

    session_settings: SessionSettings | None = None

    def __init__(
        self, session_id: str, hub: Hub, *, client: str, namespace: str = "openai-agents"
    ) -> None:
        self.session_id, self.hub, self.client, self.namespace = session_id, hub, client, namespace
        opened = json.dumps([namespace, session_id], ensure_ascii=False, separators=(",", ":"))
        self._prefix = opened[:-1] + ","

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self.hub, name)
        if isinstance(self.hub, AsyncMemoryHub):
            return await method(*args, **kwargs)
        return await asyncio.to_thread(method, *args, **kwargs)

    async def _stored(self) -> list[dict[str, Any]]:
        """The session's items as memoryhub holds them, oldest first."""
        found: list[dict[str, Any]] = []
        while True:
            page = await self._call(
                "list_items", self.client, prefix=self._prefix, limit=_PAGE, offset=len(found)
            )
            found += page
            if len(page) < _PAGE:
                return sorted(found, key=lambda i: json.loads(i["key"])[-1])

    @staticmethod
    def _item(stored: dict[str, Any]) -> dict[str, Any]:
        event = stored["event"]
        kept = event["metadata"].get("openai_agents", {})
        if kept.get("json"):
            return cast(dict[str, Any], json.loads(event["content"]))
        return {**kept.get("rest", {}), "content": event["content"]}

    def _event(self, item: dict[str, Any], sequence: str) -> dict[str, Any]:
        key = json.dumps(
            [self.namespace, self.session_id, sequence], ensure_ascii=False, separators=(",", ":")
        )
        words = _words(item)
        role = str(item.get("role", ""))
        event: dict[str, Any] = {
            "client": self.client,
            "session": self.session_id,
            "item_key": key,
            "speaker": _ROLES.get(role, role or "tool"),
            "source": "chat" if words is not None else "tool",
        }
        if words is None:
            event["content"] = json.dumps(item, ensure_ascii=False, sort_keys=True)
            event["metadata"] = {"openai_agents": {"json": True}}
        else:
            rest = {k: v for k, v in item.items() if k != "content"}
            event["content"] = words
            event["metadata"] = {"openai_agents": {"rest": rest}}
        return event

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The conversation's items in the order they were added; the latest ``limit``."""
        items = [self._item(s) for s in await self._stored()]
        if limit is None:
            return items
        return items[-limit:] if limit > 0 else []

    async def add_items(self, items: list[Any]) -> None:
        if not items:
            return
        start = time.time_ns()
        events = [self._event(dict(item), f"{start + i:020d}") for i, item in enumerate(items)]
        await self._call("add_events", events)

    async def pop_item(self) -> Any | None:
        """The most recent item, deleted (what it taught is forgotten); None when empty."""
        stored = await self._stored()
        if not stored:
            return None
        with contextlib.suppress(NotFound):  # popped meanwhile: it is gone all the same
            await self._call("delete_item", self.client, stored[-1]["key"])
        return self._item(stored[-1])

    async def clear_session(self) -> None:
        for stored in await self._stored():
            with contextlib.suppress(NotFound):
                await self._call("delete_item", self.client, stored["key"])
