"""GET and DELETE /api/v1/items/: what a framework's store put under its keys (events with
an ``item_key``), the newest version of each; a new version forgets what only the earlier
ones taught, a deletion what they all taught. (Every persona: tests/test_permission_matrix.py.)"""

import pytest

from memories.models import Event, ItemDeletion, Memory
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client, agent_key):
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    return api_client


def _items(api, **query):
    response = api.get("/api/v1/items/", {"client": "emma", **query})
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_the_newest_version_is_the_item_and_the_old_ones_memories_give_way(api, post_event):
    first = post_event("I live in Bristol.", item_key="home", metadata={"v": 1})
    second = post_event("I live in Leeds.", item_key="home", metadata={"v": 2})
    post_event("I prefer to be contacted by email.", item_key="contact")

    [item] = _items(api, key="home")

    assert item["event"] == second["event"]
    assert (item["key"], item["event"]["metadata"], item["event"]["item_key"]) == (
        "home",
        {"v": 2},
        "home",
    )
    assert item["created_at"] < item["updated_at"]
    (bristol,) = first["memories"]
    # Leeds supersedes Bristol as memory itself decides (the same attribute, changed).
    assert Memory.objects.get(pk=bristol["id"]).status == "superseded"
    assert Event.objects.filter(item_key="home").count() == 2  # nothing overwritten
    assert [i["key"] for i in _items(api)] == ["contact", "home"]  # newest first
    assert [i["key"] for i in _items(api, prefix="con")] == ["contact"]
    assert [i["key"] for i in _items(api, event=second["event"]["id"])] == ["home"]
    assert _items(api, event=first["event"]["id"]) == []  # an old version is no item


def test_the_same_words_again_keep_their_memory(api, post_event):
    first = post_event("I prefer to be contacted by email.", item_key="contact")
    post_event("I prefer to be contacted by email.", item_key="contact")

    (memory,) = first["memories"]
    assert Memory.objects.get(pk=memory["id"]).status == "active"


def test_delete_forgets_what_the_item_taught_until_it_is_put_again(api, post_event):
    said = post_event("I live in Bristol.", item_key="home")
    (memory,) = said["memories"]

    deleted = api.delete("/api/v1/items/?client=emma&key=home")
    again = api.delete("/api/v1/items/?client=emma&key=home")

    assert deleted.status_code == 200
    assert deleted.json() == {"key": "home", "forgotten": [memory["id"]]}
    assert Memory.objects.get(pk=memory["id"]).status == "deleted"
    assert _items(api, key="home") == []
    assert again.status_code == 404
    assert again.json()["error"]["message"] == "No item 'home' for client 'emma'."
    assert ItemDeletion.objects.count() == 1
    post_event("I live in Leeds.", item_key="home")
    [item] = _items(api, key="home")
    assert item["event"]["content"] == "I live in Leeds."


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({}, "client"),
        ({"client": "emma", "limit": "0"}, "limit"),
        ({"client": "emma", "event": "not-an-id"}, "event[0]"),
        ({"client": "emma", "key": "k" * 301}, "key"),
        ({"client": "emma", "prefix": "a\x00b"}, "prefix"),
    ],
)
def test_bad_queries_say_what_is_wrong(api, query, field):
    response = api.get("/api/v1/items/", query)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_a_delete_without_a_key_is_refused_and_changes_nothing(api, post_event):
    post_event("I live in Bristol.", item_key="home")
    before = take()

    response = api.delete("/api/v1/items/?client=emma")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["key"]
    assert [c for c in take().changes(before) if not c.startswith("memories.ApiKey")] == []


def test_an_item_key_longer_than_300_characters_is_refused(api):
    response = api.post(
        "/api/v1/events/",
        {"client": "emma", "content": "Hello there.", "item_key": "k" * 301},
        format="json",
    )

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["item_key"]
    assert Event.objects.count() == 0


def test_items_and_their_deletions_travel_with_the_clients_export(api_client, personas, post_event):
    post_event("I live in Bristol.", item_key="home")
    post_event("I prefer to be contacted by email.", item_key="contact")
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert api_client.delete("/api/v1/items/?client=emma&key=home").status_code == 200
    document = api_client.get("/api/v1/clients/emma/export/").json()

    assert api_client.delete("/api/v1/clients/emma/").status_code == 200
    imported = api_client.post("/api/v1/clients/", document, format="json")

    assert imported.status_code == 201, imported.content
    assert [i["key"] for i in _items(api_client)] == ["contact"]
    assert [d["key"] for d in document["item_deletions"]] == ["home"]
    assert sorted(e["item_key"] for e in document["events"]) == ["contact", "home"]
