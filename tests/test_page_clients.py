"""GET /clients/: the clients a user may browse, for every persona."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support import factories
from tests.support.snapshot import take as db_state

pytestmark = pytest.mark.django_db
URL = "/clients/"


def _names(response):
    return [c.external_ref for c in response.context["page"]]


@pytest.mark.parametrize(
    ("persona", "status", "names"),
    [
        ("advisor", 200, ["giulia", "emma", "marco"]),
        ("advisor2", 200, ["carlos"]),
        ("outsider", 200, ["emma"]),  # its own tenant's emma
        ("supervisor", 200, ["carlos", "emma", "giulia", "marco"]),
        ("admin", 200, ["carlos", "emma", "giulia", "marco", "emma"]),  # every tenant
    ],
)
def test_client_list_per_persona(client, personas, persona, status, names):
    client.force_login(getattr(personas, persona))
    response = client.get(URL)
    assert response.status_code == status
    assert "profiles/client_list.html" in [t.name for t in response.templates]
    assert sorted(_names(response)) == sorted(names)


@pytest.mark.parametrize(("persona", "status"), [("client_user", 302), ("heir", 302)])
def test_read_only_personas_are_sent_to_their_own_page(client, personas, persona, status):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.get(URL)
    assert response.status_code == status
    assert response["Location"] == reverse("profiles:mine")
    assert db_state() == before


def test_anonymous_is_sent_to_log_in(client, personas):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={URL}"


def test_counts_live_memories_and_filters_by_name(client, personas):
    factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    factories.MemoryFactory.create(client=personas.client, content="Old.", status="superseded")
    client.force_login(personas.advisor)
    response = client.get(URL, {"q": "emm"})
    [emma] = response.context["page"]
    assert (emma.external_ref, emma.live_memories) == ("emma", 1)
    assert b"1 live memory" in response.content


def test_counts_what_the_client_page_counts_before_the_expiry_sweep(client, personas):
    """Context past its expiry is gone at that moment (the page and the API agree at once);
    a plan whose day has gone by is past, not gone."""
    yesterday = timezone.now() - timedelta(days=1)
    factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    factories.MemoryFactory.create(
        client=personas.client, kind="operational", content="In a meeting.", expires_at=yesterday
    )
    factories.MemoryFactory.create(
        client=personas.client,
        kind="semantic",
        category="goal",
        content="Plan.",
        expires_at=yesterday,
    )
    client.force_login(personas.advisor)
    [emma] = client.get(URL, {"q": "emm"}).context["page"]
    assert emma.live_memories == 2


def test_htmx_filter_answers_only_the_rows(client, personas):
    client.force_login(personas.advisor)
    response = client.get(URL, {"q": "zzz"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="client-rows")
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert "No client matches “zzz”" in response.content.decode()


def test_no_assigned_clients_is_an_empty_state(client, personas):
    lonely = factories.UserFactory.create(username="lonely")
    factories.MembershipFactory.create(tenant=personas.tenant, user=lonely, role="ADVISOR")
    client.force_login(lonely)
    response = client.get(URL)
    assert response.status_code == 200
    assert "No clients are assigned to you yet" in response.content.decode()
