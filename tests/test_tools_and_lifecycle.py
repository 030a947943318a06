"""Agent tools: each schema maps to a working API call. Forget, feedback, list, roll-up."""

import json

import pytest

from memories.api.tool_schemas import TOOLS
from memories.models import AuditEntry, Memory, MemoryAccess
from memories.services.jobs.accesses import accesses_roll_up
from tests.support import factories

pytestmark = pytest.mark.django_db


def call_tool(api_client, key, name, arguments):
    """What an agent runtime does with a tool call: fill the path, send the rest."""
    tool = next(t for t in TOOLS if t["function"]["name"] == name)
    route = tool["x-memoryhub"]
    args = dict(arguments)
    path = route["path"].format(**args)
    for placeholder in ("memory_id",):
        if "{" + placeholder + "}" in route["path"]:
            args.pop(placeholder)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    method = getattr(api_client, route["method"].lower())
    if route["body"] == "query":
        return method(path, args, **auth)
    if route["body"] == "none":
        return method(path, **auth)
    return method(path, json.dumps(args), content_type="application/json", **auth)


def test_tools_are_listed_with_their_api_calls(api_client, agent_key):
    response = api_client.get("/api/v1/tools/", HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    assert response.status_code == 200
    names = [t["function"]["name"] for t in response.json()["tools"]]
    assert names == [
        "remember",
        "recall",
        "get_context",
        "get_memory",
        "list_recent",
        "forget",
        "give_feedback",
    ]
    for tool in response.json()["tools"]:
        assert tool["type"] == "function"
        assert tool["function"]["parameters"]["type"] == "object"
        assert set(tool["function"]["parameters"]["required"]) <= set(
            tool["function"]["parameters"]["properties"]
        )


READS = ["recall", "get_context", "get_memory", "list_recent"]
EVERY = ["remember", *READS, "forget", "give_feedback"]


@pytest.mark.parametrize(
    ("persona", "offered"),
    [
        ("advisor", EVERY),
        ("supervisor", EVERY),
        ("admin", EVERY),
        ("client_user", READS),
        ("heir", READS),
    ],
)
def test_each_role_is_offered_the_tools_it_may_call(api_client, personas, persona, offered):
    """As MCP's tools/list does: a read-only key is not offered remember, forget and
    give_feedback, which would only answer 403."""
    _, key = factories.api_key_for(getattr(personas, persona), personas.tenant)
    response = api_client.get("/api/v1/tools/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert response.status_code == 200
    assert [t["function"]["name"] for t in response.json()["tools"]] == offered


def test_every_tool_works_end_to_end(api_client, agent_key, personas):
    remembered = call_tool(
        api_client,
        agent_key,
        "remember",
        {"client": "emma", "content": "I prefer to be contacted by email."},
    )
    assert remembered.status_code == 201
    memory_id = remembered.json()["memories"][0]["id"]

    recalled = call_tool(api_client, agent_key, "recall", {"client": "emma", "query": "email"})
    assert recalled.json()["results"][0]["id"] == memory_id
    context = call_tool(
        api_client, agent_key, "get_context", {"client": "emma", "message": "contact?"}
    )
    assert "I prefer to be contacted by email." in context.json()["text"]
    got = call_tool(api_client, agent_key, "get_memory", {"memory_id": memory_id})
    assert got.json()["id"] == memory_id
    recent = call_tool(api_client, agent_key, "list_recent", {"client": "emma", "limit": 5})
    assert [m["id"] for m in recent.json()["results"]] == [memory_id]
    feedback = call_tool(
        api_client, agent_key, "give_feedback", {"memory_id": memory_id, "useful": False}
    )
    assert feedback.json()["confidence"] == pytest.approx(
        Memory.objects.get(pk=memory_id).confidence
    )
    forgot = call_tool(
        api_client, agent_key, "forget", {"memory_id": memory_id, "reason": "client asked"}
    )
    assert forgot.json()["status"] == "deleted"
    assert (
        call_tool(api_client, agent_key, "recall", {"client": "emma", "query": "email"}).json()[
            "results"
        ]
        == []
    )


def test_forget_is_403_for_a_client_and_404_for_another_advisor(api_client, personas):
    memory = factories.MemoryFactory.create(client=personas.client, tier="core")
    for user, status in ((personas.client_user, 403), (personas.advisor2, 404)):
        _, key = factories.api_key_for(user, personas.tenant)
        response = api_client.delete(
            f"/api/v1/memories/{memory.pk}/", HTTP_AUTHORIZATION=f"Bearer {key}"
        )
        assert response.status_code == status
    memory.refresh_from_db()
    assert memory.status == "active"
    assert not AuditEntry.objects.filter(action="memory.forget").exists()


def test_feedback_lowers_confidence_or_counts_a_use(api_client, agent_key, personas):
    memory = factories.MemoryFactory.create(client=personas.client, confidence=0.8)
    url = f"/api/v1/memories/{memory.pk}/feedback/"
    auth = {"HTTP_AUTHORIZATION": f"Bearer {agent_key}"}
    api_client.post(url, {"useful": False}, format="json", **auth)
    memory.refresh_from_db()
    assert memory.confidence == pytest.approx(0.75)
    api_client.post(url, {"useful": True}, format="json", **auth)
    assert MemoryAccess.objects.filter(memory=memory).count() == 1
    bad = api_client.post(url, {"useful": "maybe"}, format="json", **auth)
    assert bad.status_code == 400
    assert list(bad.json()["error"]["fields"]) == ["useful"]


def test_accesses_roll_up_into_usage_once(personas):
    memory = factories.MemoryFactory.create(client=personas.client)
    other = factories.MemoryFactory.create(client=personas.client)
    for target in (memory, memory, memory, other):
        MemoryAccess.objects.create(memory=target, client=personas.client)
    assert accesses_roll_up() == {"accesses": 4, "memories": 2}
    assert accesses_roll_up() == {"accesses": 0, "memories": 0}
    memory.refresh_from_db()
    assert memory.usage_count == 3
    assert memory.last_accessed_at is not None
