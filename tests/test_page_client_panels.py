"""The client page's panels (what needs attention, what the agent will read, the memories
each event produced, export) and the client list's counts and order."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Client, Memory, MemoryAccess
from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db


def _contact(client, value, days_ago, **fields):
    return factories.MemoryFactory.create(
        client=client,
        content=f"Prefers to be contacted by {value}.",
        category="preference",
        attribute="contact_channel",
        attribute_value=value,
        observed_at=timezone.now() - timedelta(days=days_ago),
        **fields,
    )


@pytest.fixture
def sofia(personas):
    """Three live contact preferences, an open conflict, a settled one and a stale one."""
    c = personas.client
    email, phone, post = _contact(c, "email", 9), _contact(c, "phone", 5), _contact(c, "post", 1)
    madrid = factories.MemoryFactory.create(client=c, content="Lives in Madrid.")
    sevilla = factories.MemoryFactory.create(client=c, content="Lives in Sevilla.")
    open_item = factories.ReviewItemFactory.create(memory=sevilla, other_memory=madrid)
    factories.ReviewItemFactory.create(
        memory=phone, other_memory=email, state="decided", decision="keep_both"
    )
    gone = factories.MemoryFactory.create(client=c, content="Lives in Bilbao.", status="superseded")
    factories.ReviewItemFactory.create(memory=gone, other_memory=madrid)  # no longer applies
    for role in ("Her son Luca studies law.", "Her son Marco studies maths."):
        factories.MemoryFactory.create(client=c, content=role, attribute="relationship:son")
    return {"contacts": [post, phone, email], "open": open_item}


def test_the_client_page_flags_open_conflicts_and_several_live_facts(client, personas, sofia):
    client.force_login(personas.advisor)
    response = client.get(f"/clients/{personas.client.pk}/")
    assert response.context["conflicts"] == [sofia["open"]]
    (group,) = response.context["shared_facts"]
    assert (group.attribute, group.label, group.memories) == (
        "contact_channel",
        "contact channel",
        sofia["contacts"],  # newest first; two sons are not a contradiction
    )
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert "Needs attention 1 open conflict" in page
    assert "Lives in Madrid. contradicted by Lives in Sevilla." in page
    assert "contact channel · 3 live" in page
    assert "decide" not in page.split("Several live facts")[0].split("Sevilla.")[1]  # advisors
    client.force_login(personas.supervisor)
    page = client.get(f"/clients/{personas.client.pk}/").content.decode()
    assert f"/review/?type=conflict&amp;client={personas.client.pk}#item-{sofia['open'].pk}" in page


def test_a_client_with_nothing_to_flag_shows_no_attention_panel(client, personas):
    _contact(personas.client, "email", 3)
    client.force_login(personas.advisor)
    assert "Needs attention" not in client.get(f"/clients/{personas.client.pk}/").content.decode()


def _named(**refs):
    for ref, name in refs.items():
        Client.objects.filter(external_ref=ref).update(display_name=name)


def test_the_client_list_counts_memories_conflicts_and_sorts(client, personas, sofia):
    _named(emma="Emma", giulia="Giulia", marco="Marco", carlos="Carlos")
    for n in range(12):
        factories.MemoryFactory.create(client=personas.parent, content=f"Fact number {n}.")
    factories.EventFactory.create(
        client=personas.heir_client, observed_at=timezone.now() - timedelta(hours=1)
    )
    factories.EventFactory.create(
        client=personas.parent, observed_at=timezone.now() - timedelta(days=3)
    )
    client.force_login(personas.advisor)

    def order(sort=None):
        response = client.get("/clients/", {"sort": sort} if sort else {})
        return [
            (c.external_ref, c.live_memories, c.open_conflicts, c.shared_facts)
            for c in response.context["page"]
        ]

    assert order() == [
        ("emma", 7, 1, True),
        ("giulia", 12, 0, False),
        ("marco", 0, 0, False),
    ]
    assert [row[0] for row in order("memories")] == ["giulia", "emma", "marco"]
    assert [row[0] for row in order("conflicts")] == ["emma", "giulia", "marco"]
    assert [row[0] for row in order("heard")] == ["marco", "giulia", "emma"]  # emma: no events
    assert [row[0] for row in order("nonsense")] == ["emma", "giulia", "marco"]
    page = client.get("/clients/", {"sort": "conflicts"}).content.decode()
    assert "1 open conflict" in page and "several live facts about one thing" in page
    assert '<option value="conflicts" selected>' in page


def test_the_preview_is_the_context_the_api_gives_for_the_same_message(
    client, api_client, agent_key, personas, post_event
):
    post_event("I prefer to be contacted by email.", days_ago=3)
    post_event("We are planning to buy a house in Bristol.", days_ago=2)
    factories.MemoryFactory.create(client=personas.client, content="Likes tea.", tier="core")
    api = api_client.post(
        "/api/v1/context/",
        {"client": "emma", "message": "How should we contact her?", "budget_chars": 300},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    ).json()
    reads = MemoryAccess.objects.count()
    client.force_login(personas.advisor)

    response = client.get(
        f"/clients/{personas.client.pk}/context/",
        {"message": "How should we contact her?", "budget_chars": "300"},
    )

    preview = response.context["preview"]
    assert preview["text"] == api["text"]
    assert (preview["budget"], preview["used"]) == (300, len(api["text"]))
    assert MemoryAccess.objects.count() == reads  # a person's preview is not an agent's read
    assert f"<strong>{len(api['text'])}</strong> of 300 characters" in response.content.decode()
    fragment = client.get(
        f"/clients/{personas.client.pk}/context/",
        {"message": "How should we contact her?", "budget_chars": "300"},
        HTTP_HX_REQUEST="true",
    )
    assert b"<html" not in fragment.content
    assert "Relevant to this message:" in fragment.content.decode()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"message": "", "budget_chars": "2000"}, "Message: This field is required."),
        (
            {"message": "Hi", "budget_chars": "50"},
            "Budget: Ensure this value is greater than or equal to 200.",
        ),
        ({"message": "Hi", "budget_chars": "lots"}, "Budget: Enter a whole number."),
    ],
)
def test_a_preview_that_cannot_be_built_says_why(client, personas, params, message):
    client.force_login(personas.advisor)
    with unchanged():
        response = client.get(f"/clients/{personas.client.pk}/context/", params)
        fragment = client.get(
            f"/clients/{personas.client.pk}/context/", params, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert fragment.status_code == 200  # htmx swaps no 4xx: the error is shown in place
    assert message in fragment.content.decode()


def test_the_export_page_gives_the_apis_document(client, api_client, personas, post_event):
    post_event("I prefer to be contacted by email.")
    _, raw = factories.api_key_for(personas.supervisor, personas.tenant)
    api = api_client.get("/api/v1/clients/emma/export/", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    client.force_login(personas.supervisor)
    response = client.get(f"/clients/{personas.client.pk}/export/")
    assert response["Content-Disposition"] == 'attachment; filename="emma-export.json"'
    document = json.loads(response.content)
    assert {**document, "exported_at": None} == {**api, "exported_at": None}
    page = client.get(f"/clients/{personas.client.pk}/").content.decode()
    assert f'href="/clients/{personas.client.pk}/export/"' in page
    client.force_login(personas.advisor)
    assert "/export/" not in client.get(f"/clients/{personas.client.pk}/").content.decode()


def test_timeline_events_link_to_the_memories_they_produced(client, personas, post_event):
    said = post_event("I prefer to be contacted by email.", days_ago=2)
    again = post_event("I prefer to be contacted by email.", days_ago=1)
    memory_id = said["memories"][0]["id"]
    assert again["memories"][0] == {**again["memories"][0], "id": memory_id}
    client.force_login(personas.advisor)
    response = client.get(f"/clients/{personas.client.pk}/timeline/", HTTP_HX_REQUEST="true")
    events = list(response.context["events"])
    assert [[(e.memory_id, e.role) for e in ev.produced] for ev in events] == [
        [(Memory.objects.get(pk=memory_id).pk, "restated")],
        [(Memory.objects.get(pk=memory_id).pk, "extracted")],
    ]
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert "I prefer to be contacted by email. heard again" in page
    assert "I prefer to be contacted by email. added" in page
    assert page.count(f"/memories/{memory_id}/") == 0  # stripped with the tags: check the HTML
    assert response.content.decode().count(f'href="/memories/{memory_id}/"') == 2


def test_a_search_for_nothing_said_says_nothing_matches(client, personas, post_event):
    post_event("I prefer to be contacted by email.")
    post_event("We are planning to buy a house in Bristol.")
    client.force_login(personas.advisor)
    response = client.get(
        f"/clients/{personas.client.pk}/memories/", {"q": "quantum chromodynamics lattice"}
    )
    assert 'class="memory-content"' not in response.content.decode()
    assert "No memory matches “quantum chromodynamics lattice”" in response.content.decode()


@pytest.mark.parametrize("fragment", ["timeline", "memories"])
def test_a_fragment_opened_directly_is_the_whole_page(client, personas, fragment):
    """A link copied or a page reloaded outside htmx gets the client page, styled and
    titled; htmx gets the fragment alone."""
    factories.EventFactory.create(client=personas.client, content="I live in Bath.")
    factories.MemoryFactory.create(client=personas.client, content="Lives in Bath.")
    client.force_login(personas.advisor)
    url = f"/clients/{personas.client.pk}/{fragment}/"
    whole = client.get(url).content.decode()
    assert whole.startswith("<!doctype html>")
    assert f"<title>{personas.client} · memoryhub</title>" in whole
    assert '<link rel="stylesheet"' in whole
    assert "I live in Bath." in whole and "Lives in Bath." in whole
    alone = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in alone and "<title>" not in alone
    assert ("I live in Bath." if fragment == "timeline" else "Lives in Bath.") in alone
