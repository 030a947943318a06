"""Search and context answer what an agent uses by default, and why each memory ranked
where it did only with ``explain`` (in the body, or ``?explain=true``)."""

import pytest

from memories.models import MemoryAccess
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db

COMPACT_HIT = {
    "id",
    "content",
    "kind",
    "category",
    "observed_at",
    "past",
    "speaker",
    "subject",
    "occurred_on",
    "occurred_precision",
    "evidence",  # the caller's ids of the events it rests on
}
EXPLAINED_HIT = COMPACT_HIT | {"tier", "status", "score", "scores", "tags"}


def _post(api_client, key, path, body, query=""):
    return api_client.post(
        f"{path}{query}", body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )


SEARCH = {"client": "emma", "query": "how should we contact her? email", "k": 5}
CONTEXT = {"client": "emma", "message": "how should we contact her? email"}


def test_a_search_answers_the_words_and_when_and_an_id_to_act_on(api_client, agent_key, post_event):
    said = post_event("I prefer to be contacted by email.", external_id="m-1")
    (memory,) = said["memories"]

    response = _post(api_client, agent_key, "/api/v1/search/", SEARCH)

    assert response.status_code == 200, response.content
    assert response.json() == {
        "results": [
            {
                "id": memory["id"],
                "content": "I prefer to be contacted by email.",
                "kind": "semantic",
                "category": "preference",
                "observed_at": said["event"]["observed_at"],
                "past": False,
                "speaker": "",
                "subject": "",
                "occurred_on": None,
                "occurred_precision": "",
                "evidence": [{"external_id": "m-1"}],
            }
        ]
    }


@pytest.mark.parametrize(
    ("body", "query"),
    [({"explain": True}, ""), ({}, "?explain=true"), ({"explain": False}, "?explain=1")],
    ids=["body", "query", "either"],
)
def test_explain_adds_the_score_and_its_evidence(api_client, agent_key, post_event, body, query):
    said = post_event("I prefer to be contacted by email.", external_id="m-1")

    response = _post(api_client, agent_key, "/api/v1/search/", {**SEARCH, **body}, query)

    assert response.status_code == 200, response.content
    [hit] = response.json()["results"]
    assert set(hit) == EXPLAINED_HIT
    assert (hit["tier"], hit["status"], hit["tags"]) == ("recall", "active", [])
    assert hit["evidence"] == [
        {
            "event": said["event"]["id"],
            "external_id": "m-1",
            "observed_at": said["event"]["observed_at"],
        }
    ]
    assert hit["scores"]["semantic"] > 0.3
    assert 0 < hit["score"] <= 1.5


def test_the_context_leaves_the_profile_to_its_text_and_explain(api_client, agent_key, post_event):
    said = post_event("I prefer to be contacted by email.")
    (memory,) = said["memories"]

    compact = _post(api_client, agent_key, "/api/v1/context/", CONTEXT).json()
    explained = _post(api_client, agent_key, "/api/v1/context/", {**CONTEXT, "explain": True})

    assert set(compact) == {"core", "memories", "coming_up", "text"}
    [hit] = compact["memories"]
    assert set(hit) == COMPACT_HIT | {"disputed_by"}
    assert (hit["id"], hit["disputed_by"]) == (memory["id"], [])
    assert "· I prefer to be contacted by email." in compact["text"]
    body = explained.json()
    assert set(body) == {"profile", "core", "memories", "coming_up", "text"}
    assert [e["memory"] for e in body["profile"]["static"]] == [memory["id"]]
    assert set(body["profile"]["static"][0]) >= {"confidence", "observed_at"}
    assert set(body["memories"][0]) == EXPLAINED_HIT | {"disputed_by"}
    assert body["text"] == compact["text"]


@pytest.mark.parametrize("path", ["/api/v1/search/", "/api/v1/context/"])
@pytest.mark.parametrize("value", ["yes", "", "TRUE!"])
def test_an_explain_that_is_not_true_or_false_is_refused_and_reads_nothing(
    api_client, personas, path, value
):
    factories.MemoryFactory.create(client=personas.client, content="Email, please.", tier="core")
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    body = SEARCH if path.endswith("search/") else CONTEXT
    before = take()

    response = _post(api_client, key, path, body, f"?explain={value}")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "explain": [f"explain must be true or false, not {value!r}."]
    }
    assert MemoryAccess.objects.count() == 0
    # A key's last use is noted before its request is read.
    assert [c for c in take().changes(before) if not c.startswith("memories.ApiKey")] == []


def test_explain_in_the_body_must_be_a_boolean(api_client, agent_key):
    response = _post(api_client, agent_key, "/api/v1/search/", {**SEARCH, "explain": "yes"})

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["explain"]


PERSONAS = ["advisor", "advisor2", "supervisor", "admin", "client_user", "heir", "outsider"]


@pytest.mark.parametrize("persona", PERSONAS)
def test_every_persona_reads_the_same_shape_it_may_read(api_client, personas, persona):
    """Who may read emma gets compact hits by default and explained ones when asked (the
    client's own login reads her core tier); others nothing of hers."""
    factories.MemoryFactory.create(
        client=personas.client, content="I prefer email.", tier="core", category="preference"
    )
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, key = factories.api_key_for(getattr(personas, persona), tenant)
    compact = _post(api_client, key, "/api/v1/search/", {**SEARCH, "query": "email"})
    explained = _post(
        api_client, key, "/api/v1/search/", {**SEARCH, "query": "email"}, "?explain=1"
    )

    if persona in ("advisor2", "heir"):
        assert (compact.status_code, explained.status_code) == (404, 404)
        return
    if persona == "outsider":  # its own tenant's "emma", who said nothing
        assert (compact.json(), explained.json()) == ({"results": []}, {"results": []})
        return
    assert (compact.status_code, explained.status_code) == (200, 200)
    [hit] = compact.json()["results"]
    [full] = explained.json()["results"]
    assert (set(hit), hit["content"]) == (COMPACT_HIT, "I prefer email.")
    assert (set(full), full["tier"]) == (EXPLAINED_HIT, "core")
    assert {k: full[k] for k in COMPACT_HIT - {"evidence"}} == {
        k: v for k, v in hit.items() if k != "evidence"
    }
    assert [e["external_id"] for e in full["evidence"]] == [
        e["external_id"] for e in hit["evidence"]
    ]
