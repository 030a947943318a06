"""Who advises a client, chosen on its page (POST /clients/{id}/advisors/), and what the
client pages show of it: the advisors panel, "no advisor yet" in the list, the client's
name and language. Who may post is in tests/test_permission_matrix.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from memories.models import AuditEntry
from memories.selectors.assignment import client_assignment
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return " ".join(response.content.decode().split())


def _url(client_record) -> str:
    return reverse("profiles:client-advisors", args=[client_record.pk])


def test_a_supervisor_sees_the_advisors_panel_and_an_advisor_does_not(client, personas):
    Group.objects.create(name="milan-desk").user_set.add(personas.advisor2)
    client.force_login(personas.supervisor)
    page = _text(client.get(reverse("profiles:client", args=[personas.client.pk])))
    assert '<h2 id="advisors-title">Advisors</h2>' in page
    assert 'name="advisors" value="advisor" id="id_advisors_0" checked' in page
    assert 'name="advisors" value="advisor2" id="id_advisors_1">' in page
    assert 'name="groups" value="milan-desk"' in page

    client.force_login(personas.advisor)
    page = _text(client.get(reverse("profiles:client", args=[personas.client.pk])))
    assert "advisors-title" not in page


def test_a_supervisor_assigns_from_the_page_in_place(client, personas):
    Group.objects.create(name="milan-desk").user_set.add(personas.advisor2)
    client.force_login(personas.supervisor)
    response = client.post(
        _url(personas.client),
        {"advisors": ["advisor", "advisor2"], "groups": ["milan-desk"]},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    text = _text(response)
    assert "Saved: the advisors ticked see this client from now on." in text
    assert 'value="advisor2" id="id_advisors_1" checked' in text
    assert client_assignment(personas.client).as_dict() == {
        "advisors": ["advisor", "advisor2"],
        "groups": ["milan-desk"],
    }
    entries = AuditEntry.objects.filter(
        object_id=str(personas.client.pk), actor=personas.supervisor
    )
    assert sorted((e.action, e.actor_label) for e in entries) == [
        ("client.assign_advisor", "supervisor"),
        ("client.assign_group", "supervisor"),
    ]


def test_without_htmx_the_page_comes_back_with_a_message(client, personas):
    client.force_login(personas.supervisor)
    response = client.post(_url(personas.client), {"advisors": []}, follow=True)
    assert response.redirect_chain == [(reverse("profiles:client", args=[personas.client.pk]), 302)]
    assert "Saved: the advisors ticked see this client from now on." in _text(response)
    assert client_assignment(personas.client).as_dict() == {"advisors": [], "groups": []}


def test_a_name_not_on_the_list_changes_nothing(client, personas):
    client.force_login(personas.supervisor)
    before = take()
    response = client.post(
        _url(personas.client), {"advisors": ["outsider"]}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert "Nothing was changed: choose advisors and groups from the lists." in _text(response)
    assert take().changes(before) == []


def test_the_list_shows_who_has_no_advisor_to_a_supervisor(client, personas):
    factories.ClientFactory.create(
        tenant=personas.tenant, external_ref="laura-conti", display_name="", language="it"
    )
    client.force_login(personas.supervisor)
    response = client.get(reverse("profiles:clients"), {"sort": "unassigned"})
    text = _text(response)
    assert response.context["sort"] == "unassigned"
    first, *_ = response.context["page"]
    assert first.external_ref == "laura-conti"
    assert text.count("no advisor yet") == 1
    assert "laura-conti · Italian" in text

    client.force_login(personas.advisor)
    response = client.get(reverse("profiles:clients"), {"sort": "unassigned"})
    assert response.context["sort"] == "name"  # not a sort of theirs
    assert "unassigned" not in response.context["sorts"]


def test_the_client_header_names_the_language(client, personas):
    personas.client.language = "es"
    personas.client.save()
    client.force_login(personas.advisor)
    text = _text(client.get(reverse("profiles:client", args=[personas.client.pk])))
    assert "· speaks Spanish ·" in text
    assert "speaks es" not in text
