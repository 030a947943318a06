"""The framework adapters of memoryhub-client, driven by the frameworks' own classes (no
LLM): a LangGraph graph compiled with ``MemoryHubStore``, and an OpenAI Agents SDK agent
run by its ``Runner`` with the SDK's scripted model, both against the live server."""

import asyncio
import json
from typing import TypedDict

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from memoryhub_client import AsyncMemoryHub, MemoryHub
from memoryhub_client.langgraph import MemoryHubStore
from memoryhub_client.openai_agents import memoryhub_tools

from memories.api.tool_schemas import TOOLS
from memories.models import Event, Memory
from tests.support import factories
from tests.support.live import LiveAsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "I prefer to be contacted by email."
MISSING = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def server():
    with LiveAsgiServer() as live:
        yield live


@pytest.fixture
def key(personas):
    return factories.api_key_for(personas.advisor, personas.tenant)[1]


class State(TypedDict):
    message: str
    recalled: list[str]


def _graph(store: MemoryHubStore, *, asynchronous: bool = False):
    """Remember what the client said, then recall what is relevant to it."""

    def remember(state: State, runtime: Runtime) -> dict:
        assert runtime.store is not None
        runtime.store.put(("memories", "emma"), "turn-1", {"content": state["message"]})
        return {}

    def recall(state: State, runtime: Runtime) -> dict:
        assert runtime.store is not None
        items = runtime.store.search(("memories", "emma"), query="how to contact her", limit=3)
        return {"recalled": [item.value["content"] for item in items]}

    async def aremember(state: State, runtime: Runtime) -> dict:
        assert runtime.store is not None
        await runtime.store.aput(("memories", "emma"), "turn-1", {"content": state["message"]})
        return {}

    async def arecall(state: State, runtime: Runtime) -> dict:
        assert runtime.store is not None
        items = await runtime.store.asearch(("memories", "emma"), query="contact", limit=3)
        return {"recalled": [item.value["content"] for item in items]}

    builder = StateGraph(State)
    builder.add_node("remember", aremember if asynchronous else remember)
    builder.add_node("recall", arecall if asynchronous else recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_langgraph_store_in_a_graph(server, personas, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub, session="graph-run-1")
        out = _graph(store).invoke({"message": EMAIL, "recalled": []})
        assert out["recalled"] == [EMAIL]
        (event,) = Event.objects.all()
        assert (event.content, event.session.external_ref) == (EMAIL, "graph-run-1")
        assert event.external_id.startswith("langgraph:")

        # The same value again is a replay: nothing new.
        store.put(("memories", "emma"), "turn-1", {"content": EMAIL})
        assert Event.objects.count() == 1

        (item,) = store.search(("memories", "emma"), filter={"kind": "semantic"})
        assert (item.value["content"], item.value["kind"], item.score) == (EMAIL, "semantic", None)
        got = store.get(("memories", "emma"), item.key)
        assert got is not None and got.value["content"] == EMAIL
        assert store.get(("memories", "giulia"), item.key) is None  # another client's namespace
        assert store.get(("memories", "emma"), "turn-1") is None  # a put key names no memory
        assert store.search(("memories", "emma"), filter={"kind": {"$ne": "semantic"}}) == []
        # A namespace per client the key sees (the advisor: their three), as LangGraph asks.
        assert store.list_namespaces() == [
            ("memories", "emma"),
            ("memories", "giulia"),
            ("memories", "marco"),
        ]
        assert store.list_namespaces(suffix=("emma",)) == [("memories", "emma")]
        assert store.list_namespaces(prefix=("other",)) == []
        assert store.list_namespaces(max_depth=1) == [("memories",)]
        assert store.list_namespaces(limit=1, offset=1) == [("memories", "giulia")]

        assert got.created_at <= got.updated_at

        store.delete(("memories", "emma"), item.key)
        assert Memory.objects.get(pk=item.key).status == "deleted"
        assert store.get(("memories", "emma"), item.key) is None  # deleted is gone
        assert store.search(("memories", "emma")) == []


def test_langgraph_store_async(server, personas, key):
    async def scenario():
        async with AsyncMemoryHub(server.url, key) as ahub:
            with MemoryHub(server.url, key) as hub:
                store = MemoryHubStore(hub, async_hub=ahub)
                out = await _graph(store, asynchronous=True).ainvoke(
                    {"message": EMAIL, "recalled": []}
                )
                items = await store.asearch(("memories", "emma"), query="email")
                assert await store.alist_namespaces(suffix=("marco",)) == [("memories", "marco")]
                return out, items

    out, items = asyncio.run(scenario())
    assert out["recalled"] == [EMAIL]
    assert [i.value["content"] for i in items] == [EMAIL]
    assert items[0].score is not None and items[0].score > 0


def test_openai_agents_tools_in_a_run(server, personas, key):
    model = ScriptedModel(
        [
            [function_call("remember", {"content": EMAIL}, call_id="c1")],
            [function_call("recall", {"query": "email", "k": 3}, call_id="c2")],
            [function_call("get_memory", {"memory_id": MISSING}, call_id="c3")],
            [assistant_message("Noted: email.")],
        ]
    )
    with MemoryHub(server.url, key) as hub:
        tools = memoryhub_tools(hub, client="emma")
        agent = Agent(name="advisor", instructions="Help the client.", model=model, tools=tools)
        result = Runner.run_sync(
            agent, "The client says: I prefer email.", run_config=RunConfig(tracing_disabled=True)
        )
    assert result.final_output == "Noted: email."
    outputs = [json.loads(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    remembered, recalled, missing = outputs
    assert remembered["memories"][0]["action"] == "added"
    assert [r["content"] for r in recalled] == [EMAIL]
    assert missing["error"]["code"] == "not_found"
    assert Event.objects.get().content == EMAIL

    # The server's own descriptions and schemas, the client argument bound away.
    functions = [t for t in tools if isinstance(t, FunctionTool)]
    assert [(t.name, t.description) for t in functions] == [
        (t["function"]["name"], t["function"]["description"]) for t in TOOLS
    ]
    remember = functions[0].params_json_schema
    assert "client" not in remember["properties"] and remember["required"] == ["content"]


def test_openai_agents_tools_with_the_async_client(server, personas, key):
    async def scenario():
        async with AsyncMemoryHub(server.url, key) as hub:
            tools = memoryhub_tools(hub, schemas=await hub.tools())
            model = ScriptedModel(
                [
                    [function_call("remember", {"client": "emma", "content": EMAIL}, call_id="a")],
                    [
                        function_call(
                            "get_context", {"client": "emma", "message": "contact?"}, call_id="b"
                        )
                    ],
                    [assistant_message("ok")],
                ]
            )
            agent = Agent(name="advisor", model=model, tools=tools)
            return await Runner.run(agent, "hi", run_config=RunConfig(tracing_disabled=True))

    result = asyncio.run(scenario())
    outputs = [json.loads(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert EMAIL in outputs[1]["text"]
