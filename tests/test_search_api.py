"""POST /api/v1/search/, GET /api/v1/memories/{id}/ and /history/ for every persona."""

import itertools

import pytest

from memories.models import Client, MemoryAccess, RelationType
from tests.support import factories

pytestmark = pytest.mark.django_db


def _search(api_client, user, tenant, **body):
    _, key = factories.api_key_for(user, tenant)
    return api_client.post(
        "/api/v1/search/", body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def test_search_answers_with_scores_and_evidence(api_client, personas, post_event):
    event = post_event("I prefer to be contacted by email.", external_id="m-1")
    post_event("I live in Bristol.")
    response = _search(
        api_client,
        personas.advisor,
        personas.tenant,
        client="emma",
        query="email contact",
        k=1,
        explain=True,
    )
    assert response.status_code == 200
    [hit] = response.json()["results"]
    assert hit["content"] == "I prefer to be contacted by email."
    assert hit["evidence"] == [
        {
            "event": event["event"]["id"],
            "external_id": "m-1",
            "observed_at": event["event"]["observed_at"],
        }
    ]
    assert 0 < hit["score"] <= 1.5
    assert hit["scores"]["semantic"] > 0.3
    assert MemoryAccess.objects.count() == 1


@pytest.mark.parametrize("query", ["out", "the", "out of it"])
def test_a_query_of_only_common_words_answers_what_it_finds(
    api_client, personas, post_event, query
):
    """A query whose every word is one the text search skips ("out", "the") has no word
    weight: the share of it a memory holds is 0, not unknown (this answered 500 when no
    memory was close enough in meaning to answer on that alone)."""
    post_event("I prefer to be contacted by email.")
    _, key = factories.api_key_for(personas.advisor, personas.tenant)

    searched = _search(api_client, personas.advisor, personas.tenant, client="emma", query=query)
    context = api_client.post(
        "/api/v1/context/",
        {"client": "emma", "message": query},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )

    assert (searched.status_code, searched.json()) == (200, {"results": []})
    assert (context.status_code, context.json()["memories"]) == (200, [])


@pytest.mark.parametrize(
    ("persona", "ref", "status"),
    [
        ("advisor", "emma", 200),
        ("supervisor", "emma", 200),
        ("admin", "emma", 200),
        ("advisor2", "emma", 404),
        ("outsider", "emma", 200),  # another tenant's own 'emma'
        ("heir", "giulia", 404),  # never a parent's memory
        ("client_user", "marco", 404),
    ],
)
def test_search_permissions(api_client, personas, post_event, persona, ref, status):
    post_event("I prefer to be contacted by email.")
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    response = _search(api_client, user, tenant, client=ref, query="email")
    assert response.status_code == status
    if persona == "outsider":
        assert response.json()["results"] == []  # its own emma knows nothing
    if status == 404:
        assert response.json()["error"]["message"] == f"Client {ref!r} not found."
        assert MemoryAccess.objects.count() == 0


def test_a_client_sees_only_their_core_memories(api_client, personas, post_event):
    core = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email.", tier="core"
    )
    post_event("I prefer email for statements.")
    response = _search(
        api_client,
        personas.client_user,
        personas.tenant,
        client="emma",
        query="email",
        filters={"tier": ["recall", "archival"]},
    )
    assert response.status_code == 200
    assert [h["id"] for h in response.json()["results"]] == [str(core.pk)]


def test_bad_search_input_is_named(api_client, personas):
    response = _search(
        api_client,
        personas.advisor,
        personas.tenant,
        client="emma",
        query="x",
        k=0,
        filters={"tier": "hot", "since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"},
    )
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert set(fields) == {"k", "filters.tier[0]"}
    response = _search(
        api_client,
        personas.advisor,
        personas.tenant,
        client="emma",
        query="x",
        filters={"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"},
    )
    assert response.json()["error"]["fields"] == {"filters.since": ["since is after until."]}


def test_memory_detail_and_history(api_client, personas, post_event, agent_key):
    from datetime import timedelta

    from django.utils import timezone

    old = post_event(
        "I prefer to be contacted by email.",
        observed_at=(timezone.now() - timedelta(days=3)).isoformat(),
    )["memories"][0]
    new = post_event("I prefer to be contacted by phone.")["memories"][0]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {agent_key}"}

    detail = api_client.get(f"/api/v1/memories/{new['id']}/", **auth).json()
    assert detail["status"] == "active"
    assert detail["is_latest"] is True
    assert detail["relations"] == [
        {
            "type": "updates",
            "direction": "out",
            "memory": {
                "id": old["id"],
                "content": "I prefer to be contacted by email.",
                "status": "superseded",
            },
        }
    ]
    assert len(detail["evidence"]) == 1

    history = api_client.get(f"/api/v1/memories/{old['id']}/history/", **auth).json()
    assert [(v["id"], v["status"], v["current"]) for v in history["versions"]] == [
        (old["id"], "superseded", True),
        (new["id"], "active", False),
    ]


def test_history_costs_the_same_queries_however_long_the_chain(api_client, personas, agent_key):
    """The version chain is one recursive query, not one query per version."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    emma = Client.objects.get(tenant=personas.tenant, external_ref="emma")
    versions = [factories.MemoryFactory.create(client=emma) for _ in range(6)]
    for older, newer in itertools.pairwise(versions):
        factories.RelationFactory.create(source=newer, target=older, type=RelationType.UPDATES)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {agent_key}"}

    def history(memory) -> tuple[int, list[str]]:
        with CaptureQueriesContext(connection) as captured:
            answer = api_client.get(f"/api/v1/memories/{memory.pk}/history/", **auth).json()
        return len(captured), [v["id"] for v in answer["versions"]]

    history(versions[0])  # the key's first use of the minute also writes its last use
    from_the_first, chain = history(versions[0])
    from_the_middle, same_chain = history(versions[3])
    two_queries, pair = history(
        factories.RelationFactory.create(
            source=factories.MemoryFactory.create(client=emma),
            target=factories.MemoryFactory.create(client=emma),
            type=RelationType.UPDATES,
        ).source
    )
    assert chain == same_chain == [str(v.pk) for v in versions]
    assert len(pair) == 2
    assert from_the_first == from_the_middle == two_queries


@pytest.mark.parametrize("persona", ["advisor2", "outsider", "heir", "client_user"])
def test_memory_detail_is_404_for_those_who_may_not_see_it(api_client, personas, persona):
    memory = factories.MemoryFactory.create(client=personas.parent, tier="recall")
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, key = factories.api_key_for(user, tenant)
    for url in (f"/api/v1/memories/{memory.pk}/", f"/api/v1/memories/{memory.pk}/history/"):
        response = api_client.get(url, HTTP_AUTHORIZATION=f"Bearer {key}")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == "Memory not found."
