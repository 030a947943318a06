"""What an MCP host does with memoryhub, the same over every transport: list the tools
and resources, call each tool once, read a resource, and try what the key may not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp import Client, MCPError
from mcp_types import TextResourceContents

from memories.api.tool_schemas import TOOLS

CONTENT = "I prefer to be contacted by email."


@dataclass
class Seen:
    tools: list = field(default_factory=list)
    calls: dict[str, Any] = field(default_factory=dict)
    resources: list[str] = field(default_factory=list)
    profile: dict = field(default_factory=dict)
    refused_resource: MCPError | None = None


async def every_tool(client: Client, *, foreign_memory_id: str) -> Seen:
    """The advisor's agent, about their client emma; ``foreign_memory_id`` belongs to a
    client the advisor does not see."""
    seen = Seen(tools=(await client.list_tools()).tools)
    calls = seen.calls
    calls["remember"] = await client.call_tool(
        "remember", {"client": "emma", "content": CONTENT, "session": "call-1"}
    )
    memory_id = calls["remember"].structured_content["memories"][0]["id"]
    calls["recall"] = await client.call_tool("recall", {"client": "emma", "query": "email"})
    calls["get_context"] = await client.call_tool(
        "get_context", {"client": "emma", "message": "How should I contact her?"}
    )
    calls["get_memory"] = await client.call_tool("get_memory", {"memory_id": memory_id})
    calls["list_recent"] = await client.call_tool("list_recent", {"client": "emma", "limit": 5})
    (read,) = (await client.read_resource("memoryhub://clients/emma/profile")).contents
    assert isinstance(read, TextResourceContents)
    seen.profile = {"uri": str(read.uri), "text": read.text}
    seen.resources = [str(r.uri) for r in (await client.list_resources()).resources]
    try:
        await client.read_resource("memoryhub://clients/carlos/core")
    except MCPError as exc:
        seen.refused_resource = exc
    calls["give_feedback"] = await client.call_tool(
        "give_feedback", {"memory_id": memory_id, "useful": False}
    )
    calls["forget"] = await client.call_tool(
        "forget", {"memory_id": memory_id, "reason": "the client asked"}
    )
    calls["denied"] = await client.call_tool("get_memory", {"memory_id": foreign_memory_id})
    calls["bad_argument"] = await client.call_tool("get_memory", {"memory_id": "not-an-id"})
    return seen


def tools_as_listed() -> list[tuple]:
    """The REST tool schemas (``GET /api/v1/tools/`` serves this table) as MCP lists them."""
    return [
        (t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
        for t in TOOLS
    ]


def check_every_tool(seen: Seen, *, api_client, key: str, foreign_memory_id: str) -> None:
    """What ``every_tool`` saw is what the REST API answers (run after it, in the test)."""
    from django.utils import timezone

    from mcp_server.answers import OUTPUT_SCHEMAS
    from memories.models import Memory

    assert [(t.name, t.description, t.input_schema) for t in seen.tools] == tools_as_listed()
    assert {t.name: t.output_schema for t in seen.tools if t.output_schema} == OUTPUT_SCHEMAS
    calls = seen.calls
    assert [name for name, result in calls.items() if result.is_error] == [
        "denied",
        "bad_argument",
    ]
    (added,) = calls["remember"].structured_content["memories"]
    assert (added["action"], added["content"], added["kind"]) == ("added", CONTENT, "semantic")
    memory_id = added["id"]
    assert [r["id"] for r in calls["recall"].structured_content["results"]] == [memory_id]
    assert CONTENT in calls["get_context"].structured_content["text"]
    assert calls["get_memory"].structured_content["id"] == memory_id
    assert [m["id"] for m in calls["list_recent"].structured_content["results"]] == [memory_id]
    memory = Memory.objects.get(pk=memory_id)
    assert calls["give_feedback"].structured_content["confidence"] == memory.confidence
    assert calls["forget"].structured_content["status"] == memory.status == "deleted"
    # A model reads a search as lines, a memory's id in each; the other tools' answers as
    # the JSON of the structured content.
    said = timezone.localdate(memory.observed_at).isoformat()
    line = f"- [{memory_id}] (semantic · preference; said {said}) {CONTENT}"
    assert calls["recall"].content[0].text == line
    assert calls["get_context"].content[0].text.endswith(f"by id:\n{line}")
    assert calls["get_memory"].content[0].text.startswith('{"id": "' + memory_id)

    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    rest = api_client.get(f"/api/v1/memories/{foreign_memory_id}/", **auth)
    assert rest.status_code == 404
    assert calls["denied"].structured_content == rest.json()
    assert calls["denied"].content[0].text == rest.json()["error"]["message"]
    assert calls["bad_argument"].structured_content == {
        "error": {
            "code": "invalid",
            "message": "memory_id: 'not-an-id' is not a valid UUID.",
            "fields": {"memory_id": ["'not-an-id' is not a valid UUID."]},
        }
    }

    assert seen.resources == [
        f"memoryhub://clients/{ref}/{kind}"
        for ref in ("emma", "giulia", "marco")
        for kind in ("profile", "core")
    ]
    assert seen.profile["uri"] == "memoryhub://clients/emma/profile"
    assert f'"text": "{CONTENT}"' in seen.profile["text"]
    assert seen.refused_resource is not None
    assert seen.refused_resource.message == "Client 'carlos' not found."


def mcp_errors(exc: BaseException) -> list[MCPError]:
    """The MCPErrors inside ``exc`` (the SDK raises them wrapped in exception groups)."""
    if isinstance(exc, MCPError):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        return [e for inner in exc.exceptions for e in mcp_errors(inner)]
    return []
