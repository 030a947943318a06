"""An agent reads compact answers and acts on them: over MCP it reads recall's lines, takes
a memory's id from the text and forgets it; with the Python client it searches, acts on a
hit's id, and still gets every field it used to with ``explain=True``."""

import asyncio
import re
from datetime import date

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent
from memoryhub_client import MemoryHub

from mcp_server.answers import memory_line
from memories.models import Memory
from tests.support import factories
from tests.support.live import LiveAsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "I prefer to be contacted by email."
PHONE = "My old phone number was the one ending in 12."
LINE = re.compile(r"^- \[([0-9a-f-]{36})\] \(([^)]*)\) (.*)$")


def _text(result) -> str:
    """What the model reads of a tool's result."""
    (text,) = result.content
    assert isinstance(text, TextContent)
    return text.text


def _memories(result) -> list[tuple[str, str]]:
    """(words, id) of each line of a recall the model reads."""
    matches = [LINE.match(line) for line in _text(result).splitlines()]
    return [(m[3], m[1]) for m in matches if m is not None]


@pytest.fixture
def server():
    with LiveAsgiServer() as live:
        yield live


def test_an_mcp_agent_forgets_what_it_read_in_recalls_lines(server, personas):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)

    async def agent():
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
        async with Client(streamable_http_client(f"{server.url}/mcp/", http_client=http)) as mcp:
            for said in (EMAIL, PHONE):
                await mcp.call_tool("remember", {"client": "emma", "content": said})
            first = await mcp.call_tool("recall", {"client": "emma", "query": "phone number"})
            found = dict(_memories(first))
            forgot = await mcp.call_tool("forget", {"memory_id": found[PHONE]})
            again = await mcp.call_tool("recall", {"client": "emma", "query": "phone number"})
            explained = await mcp.call_tool(
                "recall", {"client": "emma", "query": "contact by email", "explain": True}
            )
            return found, forgot, again, explained

    found, forgot, again, explained = asyncio.run(agent())

    assert set(found) >= {PHONE}
    assert not forgot.is_error
    assert Memory.objects.get(pk=found[PHONE]).status == "deleted"
    assert (_text(again), again.structured_content) == (
        "Nothing relevant is known.",
        {"results": []},
    )
    # Asked to explain, the model reads the whole answer, score components and all.
    [hit] = explained.structured_content["results"]
    assert (hit["content"], hit["tier"], hit["status"]) == (EMAIL, "recall", "active")
    assert _text(explained).startswith('{"results": [{"id": "' + hit["id"])
    assert '"scores": {"semantic": ' in _text(explained)


def test_a_python_agent_acts_on_a_hits_id_and_explain_keeps_every_field(server, personas):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    with MemoryHub(server.url, key) as hub:
        hub.add_event("emma", EMAIL, external_id="m-1")
        [hit] = hub.search("emma", "how to contact her by email", k=5)
        [full] = hub.search("emma", "how to contact her by email", k=5, explain=True)
        rated = hub.feedback(hit["id"], useful=True)
        context = hub.context("emma", "how to contact her by email")
        explained = hub.context("emma", "how to contact her by email", explain=True)

    assert "scores" not in hit and set(hit["evidence"][0]) == {"external_id"}
    assert {k: dict(full)[k] for k in hit if k != "evidence"} == {
        k: v for k, v in hit.items() if k != "evidence"
    }
    assert (full["tier"], full["status"], full["evidence"][0]["external_id"]) == (
        "recall",
        "active",
        "m-1",
    )
    assert set(full["scores"]) >= {"semantic", "recency"}
    assert rated["id"] == hit["id"]
    assert "profile" not in context
    assert [m["id"] for m in context["memories"]] == [hit["id"]]
    assert [e["memory"] for e in explained["profile"]["static"]] == [hit["id"]]


TODAY = date(2026, 3, 25)


@pytest.mark.parametrize(
    ("fields", "notes"),
    [
        ({}, "semantic · preference; said 2026-03-01"),
        ({"speaker": "Maria"}, "semantic · preference; said 2026-03-01 by Maria"),
        (
            {"occurred_on": "2026-04-01", "occurred_precision": "day"},
            "semantic · preference; said 2026-03-01; planned 2026-04-01, in 7 days",
        ),
        (
            {"occurred_on": "2026-03-26", "occurred_precision": "day"},
            "semantic · preference; said 2026-03-01; planned 2026-03-26, tomorrow",
        ),
        (
            {"occurred_on": "2026-03-10", "occurred_precision": "day", "past": True},
            "semantic · preference; said 2026-03-01; planned 2026-03-10, past",
        ),
        (
            {"occurred_on": "2026-02-01", "occurred_precision": "month"},
            "semantic · preference; said 2026-03-01; happened 2026-02",
        ),
        ({"disputed_by": ["x"]}, "semantic · preference; said 2026-03-01; disputed"),
    ],
)
def test_a_memory_line_says_when_it_was_said_and_when_it_happens(fields, notes):
    memory = {
        "id": "6f1c",
        "content": "Email, please.",
        "kind": "semantic",
        "category": "preference",
        "observed_at": "2026-03-01T10:00:00Z",
        "past": False,
        "speaker": "client",
        "subject": "",
        "occurred_on": None,
        "occurred_precision": "",
        **fields,
    }
    assert memory_line(memory, TODAY) == f"- [6f1c] ({notes}) Email, please."
