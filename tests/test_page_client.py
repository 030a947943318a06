"""The client page and its fragments (memory results, timeline), and /me/, per persona."""

import re

import pytest
from django.urls import reverse

from memories.models import Membership, MemoryAccess
from tests.support import factories
from tests.support.snapshot import take as db_state

pytestmark = pytest.mark.django_db

PERSONAS = ["advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir"]
# emma: assigned to advisor, linked to client_user's login.
EMMA = {
    "advisor": 200,
    "advisor2": 404,
    "outsider": 404,
    "supervisor": 200,
    "admin": 200,
    "client_user": 200,
    "heir": 404,
}


@pytest.fixture
def emma(personas):
    session = factories.SessionFactory.create(client=personas.client, external_ref="call-1")
    event = factories.EventFactory.create(
        client=personas.client, session=session, content="I prefer email, really."
    )
    email = factories.MemoryFactory.create(
        client=personas.client, content="Prefers to be contacted by email.", evidence=[event]
    )
    core = factories.MemoryFactory.create(
        client=personas.client, content="Prefers afternoon meetings.", tier="core"
    )
    old = factories.MemoryFactory.create(
        client=personas.client, content="Prefers phone calls.", status="superseded"
    )
    return {"client": personas.client, "email": email, "core": core, "old": old}


def _shown(response) -> list[str]:
    """The memories a results fragment lists, in order (fragments carry no test context)."""
    return re.findall(r'class="memory-content" href="[^"]+">([^<]+)</a>', response.content.decode())


def _urls(client_obj):
    return {
        "page": reverse("profiles:client", args=[client_obj.pk]),
        "memories": reverse("profiles:client-memories", args=[client_obj.pk]),
        "timeline": reverse("profiles:client-timeline", args=[client_obj.pk]),
    }


@pytest.mark.parametrize("persona", PERSONAS)
def test_client_page_permissions(client, personas, emma, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.get(_urls(personas.client)["page"])
    assert response.status_code == EMMA[persona]
    if response.status_code == 404:
        assert db_state() == before
        assert b"Prefers" not in response.content


def test_advisor_sees_profile_core_memories_and_timeline(client, personas, emma):
    client.force_login(personas.advisor)
    response = client.get(_urls(personas.client)["page"])
    assert "profiles/client_detail.html" in [t.name for t in response.templates]
    page = response.content.decode()
    assert "Prefers afternoon meetings." in page  # core
    assert "Prefers to be contacted by email." in page  # newest live memories
    assert "Prefers phone calls." not in page  # superseded: not by default
    assert "Session call-1" in page and "I prefer email, really." in page
    assert [m.content for m in response.context["core"]] == ["Prefers afternoon meetings."]
    assert response.context["profile"].client == personas.client


def test_the_page_shows_what_is_coming_up(client, personas, emma, post_event):
    post_event("I sign the mortgage for the Bristol house next Friday.")
    post_event("We went to Rome last week.")
    client.force_login(personas.advisor)
    response = client.get(_urls(personas.client)["page"])
    assert [m.content for m in response.context["coming_up"]] == [
        "I sign the mortgage for the Bristol house next Friday."
    ]
    page = response.content.decode()
    assert "Coming up" in page and "I sign the mortgage for the Bristol house" in page


def test_client_sees_only_their_core_memories_read_only(client, personas, emma):
    client.force_login(personas.client_user)
    response = client.get(_urls(personas.client)["page"])
    assert "profiles/client_core.html" in [t.name for t in response.templates]
    page = response.content.decode()
    assert "Prefers afternoon meetings." in page
    assert "Prefers to be contacted by email." not in page
    assert "I prefer email, really." not in page
    assert "<form" not in page.replace('action="/logout/"', "").split("</header>")[1]


@pytest.mark.parametrize("persona", PERSONAS)
def test_memory_fragment_permissions(client, personas, emma, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.get(
        _urls(personas.client)["memories"], {"q": "email"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == EMMA[persona]
    body = response.content.decode()
    if persona == "client_user":
        assert "Prefers to be contacted by email." not in body  # recall: not theirs to read
    elif response.status_code == 200:
        assert "Prefers to be contacted by email." in body
    else:
        assert db_state() == before


def test_search_uses_the_api_ranking_without_logging_access(client, personas, emma):
    client.force_login(personas.advisor)
    response = client.get(
        _urls(personas.client)["memories"], {"q": "contacted email"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert b"<html" not in response.content  # the fragment alone
    assert _shown(response)[0] == "Prefers to be contacted by email."
    assert re.search(r"<summary>score 0\.\d{3}</summary>", response.content.decode())
    assert "<dt>text</dt>" in response.content.decode()
    assert (
        response["HX-Push-Url"] == _urls(personas.client)["page"] + "?q=contacted+email&status=live"
    )
    assert MemoryAccess.objects.count() == 0


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, {"Prefers to be contacted by email.", "Prefers afternoon meetings."}),
        ({"tier": "core"}, {"Prefers afternoon meetings."}),
        ({"status": "superseded"}, {"Prefers phone calls."}),
        (
            {"status": "all"},
            {
                "Prefers to be contacted by email.",
                "Prefers afternoon meetings.",
                "Prefers phone calls.",
            },
        ),
        ({"kind": "decision"}, set()),
        ({"since": "2999-01-01"}, set()),
    ],
)
def test_filters(client, personas, emma, params, expected):
    client.force_login(personas.advisor)
    response = client.get(_urls(personas.client)["memories"], params, HTTP_HX_REQUEST="true")
    assert set(_shown(response)) == expected


def test_search_with_a_status_filter_finds_superseded_memories(client, personas, emma):
    client.force_login(personas.advisor)
    url = _urls(personas.client)["memories"]
    live = client.get(url, {"q": "phone calls"}, HTTP_HX_REQUEST="true")
    assert _shown(live) == []
    assert "No memory matches “phone calls”" in live.content.decode()
    every = client.get(url, {"q": "phone calls", "status": "all"}, HTTP_HX_REQUEST="true")
    assert _shown(every) == ["Prefers phone calls."]


def test_bad_filters_say_what_to_fix(client, personas, emma):
    client.force_login(personas.advisor)
    response = client.get(
        _urls(personas.client)["memories"],
        {"since": "2026-02-01", "until": "2026-01-01", "tier": "hot"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "The end date is before the start date: swap them." in body
    assert "Select a valid choice. hot is not one of the available choices." in body


def test_memory_list_pages(client, personas):
    for n in range(23):
        factories.MemoryFactory.create(client=personas.client, content=f"Fact number {n}.")
    client.force_login(personas.advisor)
    url = _urls(personas.client)["memories"]
    first = client.get(url, HTTP_HX_REQUEST="true")
    assert len(_shown(first)) == 20
    assert 'rel="next"' in first.content.decode()
    second = client.get(url, {"page": 2}, HTTP_HX_REQUEST="true")
    assert len(_shown(second)) == 3


@pytest.mark.parametrize("persona", PERSONAS)
def test_timeline_fragment_permissions(client, personas, emma, persona):
    client.force_login(getattr(personas, persona))
    response = client.get(_urls(personas.client)["timeline"], HTTP_HX_REQUEST="true")
    # clients read their core tier only, never the raw record
    expected = 404 if persona == "client_user" else EMMA[persona]
    assert response.status_code == expected
    assert ("I prefer email, really." in response.content.decode()) == (expected == 200)


def test_empty_client_has_empty_states(client, personas):
    client.force_login(personas.advisor)
    response = client.get(_urls(personas.parent)["page"])
    page = response.content.decode()
    assert "Nothing is remembered about" in page
    assert "No sessions or events yet." in page
    assert "No core memories." in page


@pytest.mark.parametrize(
    ("persona", "shown"),
    [
        ("client_user", "Prefers afternoon meetings."),
        ("heir", "Interested in sustainable ETFs."),
        ("advisor", None),
    ],
)
def test_my_memory_page(client, personas, emma, persona, shown):
    factories.MemoryFactory.create(
        client=personas.heir_client, content="Interested in sustainable ETFs.", tier="core"
    )
    factories.MemoryFactory.create(
        client=personas.parent, content="Giulia's own core.", tier="core"
    )
    client.force_login(getattr(personas, persona))
    response = client.get(reverse("profiles:mine"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Giulia's own core." not in page  # never a parent's memory
    if shown:
        assert [m.content for m in response.context["core"]] == [shown]
    else:  # an advisor is pointed to the clients they see, not told to ask their advisor
        assert "your login is not a client's" in page
        assert f'href="{reverse("profiles:clients")}"' in page
        assert "If you are a client" not in page


def test_my_memory_page_for_a_login_that_is_nobody_s_client(client, personas):
    Membership.objects.filter(user=personas.outsider).delete()
    client.force_login(personas.outsider)
    page = client.get(reverse("profiles:mine")).content.decode()
    assert "No client profile is linked to your login." in page
