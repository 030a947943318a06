"""MCP while the database cannot be reached: what the API answers (503 with
``Retry-After``), never a 500. Over HTTP the request is refused before any call (its key
cannot be checked); through the protocol a tool call is a tool error that says so and
when to try again, and a resource read a JSON-RPC error with the same data.

The database goes down for real for every connection opened from here on: the
connection settings point at a socket directory where no server listens (the test's own
connection, already open, stays)."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import httpx2
import pytest
from django.db import connections
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_server.server import build_server
from tests.support import factories
from tests.support.live import LiveAsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

UNAVAILABLE = {
    "code": "database_unavailable",
    "message": "The database is unavailable; try again in a moment.",
    "fields": {},
}


@contextmanager
def new_connections_fail(socket_dir):
    database = connections.settings["default"]
    saved = database["HOST"]
    database["HOST"] = str(socket_dir)
    try:
        yield
    finally:
        database["HOST"] = saved


def test_over_http_the_answer_is_503_with_retry_after(personas, tmp_path):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    with LiveAsgiServer() as server, new_connections_fail(tmp_path):
        answer = httpx2.post(
            f"{server.url}/mcp/",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "30"
    assert answer.json() == {"error": UNAVAILABLE}
    assert "socket" not in answer.text


def test_a_tool_call_and_a_resource_read_say_the_database_is_unavailable(personas, tmp_path):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)

    async def scenario():
        async with Client(build_server(lambda ctx: key)) as client:
            with new_connections_fail(tmp_path):
                result = await client.call_tool("recall", {"client": "emma", "query": "pension"})
                with pytest.raises(MCPError) as refused:
                    await client.read_resource("memoryhub://clients/emma/profile")
                with pytest.raises(MCPError) as unlisted:
                    await client.list_resources()
            return result, refused.value, unlisted.value

    result, refused, unlisted = asyncio.run(scenario())
    assert result.is_error
    assert result.structured_content == {"error": {**UNAVAILABLE, "retry_after": 30}}
    assert result.content[0].text == UNAVAILABLE["message"]
    for error in (refused, unlisted):
        assert error.error.message == UNAVAILABLE["message"]
        assert error.error.data == {**UNAVAILABLE, "retry_after": 30}
