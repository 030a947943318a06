"""POST /api/v1/events/batch/, the LLM extractor, and ingest when embeddings fail."""

from collections import deque

import pytest

from memories.models import Event, Memory, MemoryEmbedding
from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db

URL = "/api/v1/events/batch/"


def _post(api_client, key, events):
    return api_client.post(
        URL, {"events": events}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def test_one_answer_per_event_in_order(api_client, agent_key, personas):
    events = [
        {"client": "emma", "content": "I live in Bristol.", "external_id": "1"},
        {
            "client": "giulia",
            "content": "Preferisco essere contattata via email.",
            "external_id": "2",
        },
        {"client": "emma", "content": "Thanks, bye!", "external_id": "3"},
        {"client": "emma", "content": "I live in Bristol.", "external_id": "4"},
    ]
    response = _post(api_client, agent_key, events)
    assert response.status_code == 201
    results = response.json()["results"]
    assert [r["event"]["external_id"] for r in results] == ["1", "2", "3", "4"]
    assert [[m["action"] for m in r["memories"]] for r in results] == [
        ["added"],
        ["added"],
        [],
        ["deduplicated"],
    ]
    assert results[1]["event"]["client"] == "giulia"
    assert Event.objects.count() == 4
    assert Memory.objects.count() == 2


def test_a_replayed_batch_answers_the_same(api_client, agent_key, personas):
    events = [
        {"client": "emma", "content": f"I have {n} cats.", "external_id": f"c{n}"} for n in (2, 3)
    ]
    first = _post(api_client, agent_key, events).json()
    second = _post(api_client, agent_key, events).json()
    assert second == first
    assert Event.objects.count() == 2


def test_memories_are_kept_without_vectors_when_every_provider_fails(
    api_client, agent_key, personas, settings, fake_provider
):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage"]
    settings.VOYAGE_API_KEY, settings.VOYAGE_BASE_URL = "k", fake_provider.base_url
    from memories.services.embedding.providers import reset_chain

    reset_chain()
    fake_provider.script.extend(["500", "500"])
    body = _post(api_client, agent_key, [{"client": "emma", "content": "I live in Bristol."}])
    assert body.status_code == 201
    memory = Memory.objects.get()
    assert memory.needs_embedding is True
    assert MemoryEmbedding.objects.count() == 0
    # exact dedup still works without vectors
    again = _post(api_client, agent_key, [{"client": "emma", "content": "I live in Bristol."}])
    assert again.json()["results"][0]["memories"][0]["action"] == "deduplicated"


def test_vectors_come_from_the_failover_provider(api_client, agent_key, remote_providers):
    remote_providers.scripts["voyage-3-large"] = deque(["429"])
    _post(api_client, agent_key, [{"client": "emma", "content": "I live in Bristol."}])
    embedding = MemoryEmbedding.objects.get()
    assert (embedding.space.provider, embedding.space.dimension) == ("openai-small", 1536)


def test_the_llm_extractor_makes_one_call_per_batch(
    api_client, agent_key, personas, settings, fake_provider
):
    settings.MEMORYHUB = {"EXTRACTOR": "llm", "LLM_BASE_URL": fake_provider.base_url}
    fake_provider.chat_reply = {
        "memories": [
            {
                "event": 0,
                "content": "Emma lives in Bristol.",
                "kind": "semantic",
                "category": "fact",
                "confidence": 0.9,
                "importance": 0.6,
                "expires_in_days": None,
                "attribute": "residence",
                "value": "bristol",
                "negated": False,
            },
            {
                "event": 1,
                "content": "Emma will call back tomorrow.",
                "kind": "operational",
                "category": "event",
                "confidence": 0.8,
                "importance": 0.3,
                "expires_in_days": 1,
                "attribute": "",
                "value": "",
                "negated": False,
            },
        ]
    }
    response = _post(
        api_client,
        agent_key,
        [
            {"client": "emma", "content": "I moved to Bristol last year."},
            {"client": "emma", "content": "I'll call you back tomorrow."},
        ],
    )
    assert response.status_code == 201
    chats = [r for r in fake_provider.requests if r["path"].endswith("/chat/completions")]
    assert len(chats) == 1
    assert chats[0]["body"]["response_format"]["type"] == "json_schema"
    assert (
        "[0] (chat, user) I moved to Bristol last year."
        in chats[0]["body"]["messages"][1]["content"]
    )
    contents = [r["memories"][0]["content"] for r in response.json()["results"]]
    assert contents == ["Emma lives in Bristol.", "Emma will call back tomorrow."]
    assert Memory.objects.get(content="Emma lives in Bristol.").attribute == "residence"
    assert Memory.objects.get(kind="operational").expires_at is not None


@pytest.mark.parametrize("reply", ["not json at all", {"memories": [{"event": 7}]}, "500"])
def test_the_llm_extractor_falls_back_to_the_heuristic(
    api_client, agent_key, personas, settings, fake_provider, reply
):
    settings.MEMORYHUB = {"EXTRACTOR": "llm", "LLM_BASE_URL": fake_provider.base_url}
    if reply == "500":
        fake_provider.script.append("500")
    else:
        fake_provider.chat_reply = reply
    response = _post(api_client, agent_key, [{"client": "emma", "content": "I live in Bristol."}])
    assert response.status_code == 201
    assert response.json()["results"][0]["memories"][0]["content"] == "I live in Bristol."


@pytest.mark.parametrize("persona", ["client_user", "heir"])
def test_a_read_only_key_cannot_tell_which_references_exist(api_client, personas, persona):
    """The batch answers a key that may not write as a single event does: the same for
    another client's reference as for one nobody has, whichever comes first, and nothing
    is stored."""
    _, key = factories.api_key_for(getattr(personas, persona), personas.tenant)
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {key}")  # last_used_at

    def answer(*refs: str):
        events = [{"client": ref, "content": "I live in Leeds."} for ref in refs]
        response = _post(api_client, key, events)
        return response.status_code, response.json()

    refused = (
        403,
        {
            "error": {
                "code": "permission_denied",
                "message": "This role has read-only access to memory.",
                "fields": {},
            }
        },
    )
    with unchanged():
        assert answer("carlos") == refused
        assert answer("nobody-yet") == refused
        assert answer("carlos", "nobody-yet") == refused
        assert answer("nobody-yet", "aaron") == refused
        assert answer("emma", "marco") == refused
