"""The framework adapters of memoryhub-client, driven by the frameworks' own classes (no
LLM): a LangGraph graph compiled with ``MemoryHubStore``, and an OpenAI Agents SDK agent
run by its ``Runner`` with the SDK's scripted model, both against the live server."""

import asyncio
import json
from typing import TypedDict, cast

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, Item, ListNamespacesOp, PutOp, SearchOp
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


NS = ("memories", "emma")


def test_langgraph_store_in_a_graph(server, personas, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub, session="graph-run-1")
        out = _graph(store).invoke({"message": EMAIL, "recalled": []})
        assert out["recalled"] == [EMAIL]
        (event,) = Event.objects.all()
        assert (event.content, event.session.external_ref) == (EMAIL, "graph-run-1")
        assert event.item_key == '["memories","emma","turn-1"]'
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


def test_langgraph_get_after_put_answers_the_value_under_the_callers_key(server, key):
    value = {"content": EMAIL, "channel": "email", "n": 1}
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        store.put(NS, "turn-1", value)
        got = store.get(NS, "turn-1")
        assert got is not None
        assert (got.namespace, got.key, got.value) == (NS, "turn-1", value)
        assert got.created_at == got.updated_at
        assert store.get(NS, "turn-2") is None  # never put
        assert store.get(("memories", "giulia"), "turn-1") is None  # another client's
        assert store.get(("notes", "emma"), "turn-1") is None  # another namespace


def test_langgraph_a_secret_in_a_value_is_withheld_as_in_any_event(server, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        store.put(NS, "turn-1", {"content": "My PIN is 4471.", "n": 1})
        got = store.get(NS, "turn-1")
    assert got is not None
    assert got.value == {"content": "My PIN is [PIN withheld].", "n": 1}
    (event,) = Event.objects.all()
    assert "4471" not in json.dumps([event.content, event.metadata])


def test_langgraph_put_again_makes_a_new_version_and_the_old_one_gives_way(server, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        store.put(NS, "contact", {"content": "I live in Bristol."})
        (bristol,) = Memory.objects.all()
        store.put(NS, "contact", {"content": EMAIL})
        got = store.get(NS, "contact")
        assert got is not None and got.value == {"content": EMAIL}
        assert got.created_at < got.updated_at
        # Nothing overwritten: both versions are events; what only the first taught is gone.
        assert Event.objects.count() == 2
        bristol.refresh_from_db()
        assert (bristol.status, bristol.status_reason) == (
            "deleted",
            'item \'["memories","emma","contact"]\' was put again',
        )
        [hit] = store.search(NS, query="how to contact her")
        assert (hit.key, hit.value) == ("contact", {"content": EMAIL})


def test_langgraph_delete_forgets_and_a_put_brings_the_key_back(server, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        store.put(NS, "turn-1", {"content": EMAIL})
        (memory,) = Memory.objects.all()
        store.delete(NS, "turn-1")
        assert store.get(NS, "turn-1") is None
        assert store.search(NS) == []
        assert store.search(NS, query="email") == []
        memory.refresh_from_db()
        assert memory.status == "deleted"
        store.delete(NS, "turn-1")  # deleting what is gone is no error
        store.put(NS, "turn-1", {"content": "I live in Bristol."})
        got = store.get(NS, "turn-1")
        assert got is not None and got.value == {"content": "I live in Bristol."}
        store.batch([PutOp(NS, "turn-1", None)])  # LangGraph's other way to delete
        assert store.get(NS, "turn-1") is None


def test_langgraph_search_lists_ranks_filters_and_pages_items(server, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        store.put(NS, "a", {"content": EMAIL, "topic": "contact"})
        store.put(NS, "b", {"content": "I live in Bristol.", "topic": "home"})
        store.put(("notes", "emma"), "c", {"content": "We met at the Bristol office."})
        listed = store.search(NS)
        assert [(i.key, i.score) for i in listed] == [("b", None), ("a", None)]  # newest first
        assert [i.key for i in store.search(NS, filter={"topic": "contact"})] == ["a"]
        assert [i.key for i in store.search(NS, filter={"topic": {"$ne": "contact"}})] == ["b"]
        assert [i.key for i in store.search(NS, limit=1, offset=1)] == ["a"]
        ranked = store.search(NS, query="how to contact her by email")
        found = ranked[0]
        assert (found.key, found.namespace, found.value["topic"]) == ("a", NS, "contact")
        assert {i.key for i in ranked} <= {"a", "b"}  # "c" is in another namespace
        assert found.score is not None and found.score > 0
        assert [i.key for i in store.search(("notes",))] == []  # namespaces name the client
        assert [i.key for i in store.search(("notes", "emma"))] == ["c"]


def test_langgraph_batch_answers_each_op_in_order(server, key):
    with MemoryHub(server.url, key) as hub:
        store = MemoryHubStore(hub)
        results = store.batch(
            [
                PutOp(NS, "turn-1", {"content": EMAIL}),
                GetOp(NS, "turn-1"),
                SearchOp(NS, limit=10),
                ListNamespacesOp(match_conditions=None, max_depth=None, limit=1, offset=0),
            ]
        )
    put, got, found, namespaces = results
    assert put is None
    assert isinstance(got, Item) and got.value == {"content": EMAIL}
    assert isinstance(found, list) and [cast(Item, i).key for i in found] == ["turn-1"]
    assert namespaces == [("memories", "emma")]


def test_langgraph_store_async(server, personas, key):
    async def scenario():
        async with AsyncMemoryHub(server.url, key) as ahub:
            with MemoryHub(server.url, key) as hub:
                store = MemoryHubStore(hub, async_hub=ahub)
                out = await _graph(store, asynchronous=True).ainvoke(
                    {"message": EMAIL, "recalled": []}
                )
                items = await store.asearch(("memories", "emma"), query="email")
                got = await store.aget(NS, "turn-1")
                await store.adelete(NS, "turn-1")
                gone = await store.aget(NS, "turn-1")
                assert await store.alist_namespaces(suffix=("marco",)) == [("memories", "marco")]
                return out, items, got, gone

    out, items, got, gone = asyncio.run(scenario())
    assert out["recalled"] == [EMAIL]
    assert [(i.key, i.value["content"]) for i in items] == [("turn-1", EMAIL)]
    assert items[0].score is not None and items[0].score > 0
    assert got is not None and got.value == {"content": EMAIL}
    assert gone is None


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
