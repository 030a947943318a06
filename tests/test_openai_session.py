"""``MemoryHubSession`` as the OpenAI Agents SDK's ``Session`` protocol documents it:
items back in the order they were added, the latest ``limit`` of them, ``pop_item`` the
most recent (None when empty), ``clear_session`` all of them; and a run of the SDK's
``Runner`` that keeps its conversation there, against the live server."""

import asyncio

import pytest
from agents import Agent, RunConfig, Runner
from agents.memory import Session
from agents.testing import ScriptedModel, assistant_message
from memoryhub_client import AsyncMemoryHub, MemoryHub
from memoryhub_client.openai_agents import MemoryHubSession

from memories.models import Event, Memory
from tests.support import factories
from tests.support.live import LiveAsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "I prefer to be contacted by email."
USER = {"role": "user", "content": EMAIL}
ASSISTANT = {"role": "assistant", "content": "Noted: email."}
CALL = {
    "type": "function_call",
    "call_id": "c1",
    "name": "lookup",
    "arguments": '{"topic": "contact"}',
}


@pytest.fixture
def server():
    with LiveAsgiServer() as live:
        yield live


@pytest.fixture
def key(personas):
    return factories.api_key_for(personas.advisor, personas.tenant)[1]


def test_the_session_keeps_items_in_order_pops_the_latest_and_clears(server, key):
    async def scenario():
        async with AsyncMemoryHub(server.url, key) as hub:
            session = MemoryHubSession("call-42", hub, client="emma")
            other = MemoryHubSession("call-43", hub, client="emma")
            seen = {"empty": await session.get_items(), "popped_empty": await session.pop_item()}
            await session.add_items([USER, ASSISTANT])
            await session.add_items([CALL])
            await other.add_items([{"role": "user", "content": "I live in Bristol."}])
            seen["all"] = await session.get_items()
            seen["latest"] = await session.get_items(limit=2)
            seen["popped"] = await session.pop_item()
            seen["after_pop"] = await session.get_items()
            await session.clear_session()
            seen["cleared"] = await session.get_items()
            seen["other"] = await other.get_items()
            return session, seen

    session, seen = asyncio.run(scenario())

    assert isinstance(session, Session)
    assert (seen["empty"], seen["popped_empty"]) == ([], None)
    assert seen["all"] == [USER, ASSISTANT, CALL]
    assert seen["latest"] == [ASSISTANT, CALL]
    assert seen["popped"] == CALL
    assert seen["after_pop"] == [USER, ASSISTANT]
    assert seen["cleared"] == []
    assert seen["other"] == [{"role": "user", "content": "I live in Bristol."}]
    # The client's words taught memory as any event does; clearing forgot them.
    said = Event.objects.get(content=EMAIL)
    assert said.session is not None
    assert (said.speaker, said.session.external_ref) == ("client", "call-42")
    assert Memory.objects.get(content=EMAIL).status == "deleted"
    assert Memory.objects.get(content="I live in Bristol.").status == "active"


def test_a_runner_keeps_its_conversation_in_the_session(server, key):
    model = ScriptedModel([[assistant_message("Noted: email.")]])
    with MemoryHub(server.url, key) as hub:
        session = MemoryHubSession("call-44", hub, client="emma")
        agent = Agent(name="advisor", instructions="Help the client.", model=model)
        result = Runner.run_sync(
            agent, EMAIL, session=session, run_config=RunConfig(tracing_disabled=True)
        )
        items = asyncio.run(session.get_items())

    assert result.final_output == "Noted: email."
    assert items[0] == {"role": "user", "content": EMAIL}
    assert [i.get("role") for i in items] == ["user", "assistant"]
    assert Memory.objects.get(content=EMAIL).status == "active"
