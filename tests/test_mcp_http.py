"""The MCP server over Streamable HTTP, at /mcp/ of the live ASGI application, driven by
the official MCP client (both protocol eras: the 2026-07-28 one, and the initialize
handshake of 2025 clients)."""

import asyncio

import httpx2
import pytest
from asgiref.sync import sync_to_async
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import INTERNAL_ERROR, TextContent

from memories.models import Event, Memory
from tests.support import factories
from tests.support.live import LiveAsgiServer
from tests.support.mcp_scenario import check_every_tool, every_tool, mcp_errors
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server():
    with LiveAsgiServer() as live:
        yield live


def _client(server, key: str, mode: str = "auto", **headers) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers})
    return Client(streamable_http_client(f"{server.url}/mcp/", http_client=http), mode=mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_tool_and_resource(server, personas, api_client, mode):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    foreign = factories.MemoryFactory.create(client=personas.advisor2_client)

    async def scenario():
        async with _client(server, key, mode) as client:
            return await every_tool(client, foreign_memory_id=str(foreign.pk))

    seen = asyncio.run(scenario())
    check_every_tool(seen, api_client=api_client, key=key, foreign_memory_id=str(foreign.pk))


def test_a_read_only_key_may_not_write_and_nothing_is_stored(server, personas):
    _, key = factories.api_key_for(personas.client_user, personas.tenant)

    async def scenario():
        async with _client(server, key) as client:
            return await client.call_tool("remember", {"client": "emma", "content": "Hello."})

    before = (Event.objects.count(), Memory.objects.count())
    result = asyncio.run(scenario())
    assert result.is_error
    assert result.structured_content["error"]["code"] == "permission_denied"
    assert result.content[0].text == "This role has read-only access to memory."
    assert (Event.objects.count(), Memory.objects.count()) == before


@pytest.mark.parametrize("persona", ["client_user", "heir"])
def test_remember_tells_a_read_only_key_nothing_of_which_references_exist(
    server, personas, persona
):
    """A host may call remember though tools/list does not offer it: the refusal is the
    same for another client's reference as for one nobody has."""
    _, key = factories.api_key_for(getattr(personas, persona), personas.tenant)

    async def scenario():
        async with _client(server, key) as client:
            await client.call_tool("list_recent", {"client": "nobody-yet"})  # last_used_at
            before = await sync_to_async(take)()
            seen = {}
            for ref in ("carlos", "nobody-yet"):
                result = await client.call_tool("remember", {"client": ref, "content": "Hi."})
                (said,) = result.content
                assert isinstance(said, TextContent)
                seen[ref] = (result.is_error, result.structured_content, said.text)
            return before, seen, await sync_to_async(take)()

    before, seen, after = asyncio.run(scenario())
    assert after.changes(before) == []
    assert (
        seen["carlos"]
        == seen["nobody-yet"]
        == (
            True,
            {
                "error": {
                    "code": "permission_denied",
                    "message": "This role has read-only access to memory.",
                    "fields": {},
                }
            },
            "This role has read-only access to memory.",
        )
    )


def test_a_read_only_key_is_offered_the_read_only_tools_alone(server, personas):
    keys = {
        who: factories.api_key_for(getattr(personas, who), personas.tenant)[1]
        for who in ("client_user", "heir", "advisor")
    }

    async def names(key):
        async with _client(server, key) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    reads = {"recall", "get_context", "get_memory", "list_recent"}
    assert asyncio.run(names(keys["client_user"])) == reads
    assert asyncio.run(names(keys["heir"])) == reads
    assert asyncio.run(names(keys["advisor"])) > reads | {"remember", "forget"}


def test_throttled_calls_are_tool_errors_and_store_nothing(server, personas, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"read": "100/minute", "write": "1/minute"},
    }
    _, key = factories.api_key_for(personas.advisor, personas.tenant)

    async def scenario():
        async with _client(server, key) as client:
            first = await client.call_tool("remember", {"client": "emma", "content": "Note one."})
            second = await client.call_tool("remember", {"client": "emma", "content": "Note two."})
            return first, second

    first, second = asyncio.run(scenario())
    assert not first.is_error
    assert second.is_error
    assert second.structured_content["error"]["code"] == "throttled"
    assert second.content[0].text.startswith(
        "Too many requests for this API key: the limit is 1 write requests per minute."
    )
    assert list(Event.objects.values_list("content", flat=True)) == ["Note one."]


def test_a_bad_key_is_refused_before_any_call(server, personas):
    async def scenario():
        async with _client(server, "mh_00000000_not-a-real-key") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as refused:  # the SDK's task groups wrap it
        asyncio.run(scenario())
    assert [(e.code, e.message) for e in mcp_errors(refused.value)] == [
        (INTERNAL_ERROR, "Server returned an error response")
    ]

    answer = httpx2.post(
        f"{server.url}/mcp/",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": "Bearer mh_00000000_not-a-real-key"},
    )
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert answer.json() == {
        "error": {"code": "authentication_failed", "message": "Unknown API key.", "fields": {}}
    }
    anonymous = httpx2.post(f"{server.url}/mcp/", json={"jsonrpc": "2.0", "id": 1})
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_authenticated"


def test_hosts_and_origins_follow_allowed_hosts(server, personas, settings):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    auth = {"Authorization": f"Bearer {key}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    rebound = httpx2.post(f"{server.url}/mcp/", json=body, headers={**auth, "Host": "evil.example"})
    assert rebound.status_code == 421
    assert rebound.json()["error"]["message"] == "Host 'evil.example' is not allowed."
    foreign_page = httpx2.post(
        f"{server.url}/mcp/", json=body, headers={**auth, "Origin": "http://evil.example"}
    )
    assert foreign_page.status_code == 403

    settings.ALLOWED_HOSTS = [".example.com"]

    async def scenario():
        async with _client(server, key, Host="memory.example.com") as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(scenario())[0] == "remember"


def test_the_rest_of_the_site_is_still_django(server):
    answer = httpx2.get(f"{server.url}/api/v1/health/")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "caller": None}


def test_without_the_asgi_lifespan_mcp_says_what_it_needs(personas):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    with LiveAsgiServer(lifespan="off") as server:
        answer = httpx2.post(
            f"{server.url}/mcp/",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {key}"},
        )
    assert answer.status_code == 503
    assert answer.json()["error"]["message"] == (
        "The MCP transport starts with the ASGI lifespan: serve memoryhub.asgi:application "
        "with lifespan events on."
    )


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_a_stateless_server_opens_no_stream_and_ends_no_session(server, personas, method):
    """A GET used to open an event stream that never ended (a ping every 15 s): some
    sixty of them, with any valid key, and nothing else was answered. Now the answer is
    at once."""
    _, key = factories.api_key_for(personas.client_user, personas.tenant)
    answer = httpx2.request(
        method,
        f"{server.url}/mcp/",
        headers={"Authorization": f"Bearer {key}", "Accept": "text/event-stream"},
        timeout=10,
    )
    assert answer.status_code == 405
    assert answer.headers["Allow"] == "POST"
    assert answer.json()["error"]["code"] == "method_not_allowed"
    assert answer.json()["error"]["message"].startswith(f"{method} is not served at /mcp/")


def test_many_stream_requests_leave_the_server_answering(server, personas):
    _, key = factories.api_key_for(personas.client_user, personas.tenant)
    headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}

    async def scenario():
        async with httpx2.AsyncClient(timeout=10) as http:
            streams = await asyncio.gather(
                *(http.get(f"{server.url}/mcp/", headers=headers) for _ in range(80))
            )
            live = await http.get(f"{server.url}/api/v1/health/live")
        return [s.status_code for s in streams], live.status_code

    statuses, live = asyncio.run(scenario())
    assert set(statuses) == {405}
    assert live == 200
