"""PUT /api/v1/clients/{ref}/ (a client's name and language, the client created when
missing) and GET/PUT /api/v1/clients/{ref}/advisors/ (who advises it). Who may call which
is in tests/test_permission_matrix.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from memories.models import AuditEntry, Client
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_supervisor(api_client, personas):
    _, raw = factories.api_key_for(personas.supervisor, personas.tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    api_client.get("/api/v1/health/")  # the key's first use, before any snapshot
    return api_client


@pytest.fixture
def as_advisor(api_client, agent_key):
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    return api_client


def _actions(client_pk) -> list[tuple[str, dict]]:
    rows = AuditEntry.objects.filter(object_type="client", object_id=str(client_pk))
    return [(a.action, a.data) for a in rows.order_by("at", "pk")]


def test_a_supervisor_creates_a_client_with_its_name_and_language(as_supervisor, personas):
    response = as_supervisor.put(
        "/api/v1/clients/laura-conti/",
        {"display_name": "  Laura   Conti ", "language": "it"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    laura = Client.objects.get(tenant=personas.tenant, external_ref="laura-conti")
    assert (laura.display_name, laura.language) == ("Laura Conti", "it")
    assert response.json() == {
        "ref": "laura-conti",
        "display_name": "Laura Conti",
        "language": "it",
        "created_at": laura.created_at.isoformat().replace("+00:00", "Z"),
    }
    assert _actions(laura.pk) == [("client.create", {"fields": ["display_name", "language"]})]


def test_an_agent_names_the_client_it_created(as_advisor, personas, post_event):
    personas.tenant.advisors_create_clients = True
    personas.tenant.save(update_fields=["advisors_create_clients"])
    post_event("Buongiorno, preferisco essere contattata via email.", client="laura-conti")
    laura = Client.objects.get(tenant=personas.tenant, external_ref="laura-conti")
    assert (laura.display_name, laura.language) == ("", "")

    response = as_advisor.put(
        "/api/v1/clients/laura-conti/", {"display_name": "Laura Conti"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["display_name"] == "Laura Conti"
    response = as_advisor.put("/api/v1/clients/laura-conti/", {"language": "it"}, format="json")
    assert response.status_code == 200
    laura.refresh_from_db()
    assert (laura.display_name, laura.language) == ("Laura Conti", "it")
    updates = [data for action, data in _actions(laura.pk) if action == "client.update"]
    assert updates == [{"fields": ["display_name"]}, {"fields": ["language"]}]


def test_an_advisor_who_creates_a_client_advises_it(as_advisor, personas):
    personas.tenant.advisors_create_clients = True
    personas.tenant.save(update_fields=["advisors_create_clients"])
    response = as_advisor.put("/api/v1/clients/new-one/", {"language": "es"}, format="json")
    assert response.status_code == 201
    new = Client.objects.get(tenant=personas.tenant, external_ref="new-one")
    assert personas.advisor.has_perm("memories.advise_client", new)
    seen = as_advisor.get("/api/v1/clients/").json()["results"]
    assert "new-one" in [c["ref"] for c in seen]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"language": "klingon"},
            "language",
            "'klingon' is not a language memoryhub reads: use one of en, it, es, fr, de, pt, "
            "nl (ISO 639-1), or an empty string for none.",
        ),
        ({"language": 7}, "language", "'7' is not a language memoryhub reads"),
        ({"display_name": "x" * 201}, "display_name", "no more than 200 characters"),
        ({"display_name": 5}, "display_name", "Not a valid string."),
        ({"display_name": "a\x00b"}, "display_name", "Null characters are not allowed."),
        ({"name": "Emma"}, "name", "Unknown field."),
    ],
)
def test_a_bad_name_or_language_is_refused_and_nothing_changes(
    as_supervisor, personas, body, field, message
):
    before = take()
    response = as_supervisor.put("/api/v1/clients/emma/", body, format="json")
    assert response.status_code == 400
    assert message in response.json()["error"]["fields"][field][0]
    assert take().changes(before) == []


@pytest.mark.parametrize("ref", [".", "..", "a\x00b"])
def test_a_reference_that_cannot_name_a_client_is_refused(as_supervisor, personas, ref):
    before = take()
    response = as_supervisor.put(f"/api/v1/clients/{ref}/", {"language": "en"}, format="json")
    assert response.status_code in (400, 404)  # "." and ".." are resolved away by the client
    assert take().changes(before) == []


def _refs_seen(user, tenant) -> list[str]:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {factories.api_key_for(user, tenant)[1]}")
    return [c["ref"] for c in api.get("/api/v1/clients/").json()["results"]]


def test_a_supervisor_chooses_who_advises_a_client(as_supervisor, personas):
    team = Group.objects.create(name="milan-desk")
    personas.advisor2.groups.add(team)
    url = "/api/v1/clients/emma/advisors/"
    assert as_supervisor.get(url).json() == {
        "client": "emma",
        "advisors": ["advisor"],
        "groups": [],
    }

    response = as_supervisor.put(
        url, {"advisors": ["advisor2"], "groups": ["milan-desk"]}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json() == {"client": "emma", "advisors": ["advisor2"], "groups": ["milan-desk"]}
    assert as_supervisor.get(url).json() == response.json()
    assert [a for a in _actions(personas.client.pk) if a[0] != "client.assign_advisor"] == [
        ("client.unassign_advisor", {"advisor": "advisor"}),
        ("client.assign_group", {"group": "milan-desk"}),
    ]
    label = AuditEntry.objects.get(action="client.assign_group").actor_label
    assert label.startswith("supervisor (key ")

    # The advisor sees it at once, the one taken off no longer does.
    assert _refs_seen(personas.advisor2, personas.tenant) == ["carlos", "emma"]
    assert _refs_seen(personas.advisor, personas.tenant) == ["giulia", "marco"]

    # The same choice again changes nothing and writes nothing.
    before = take()
    again = as_supervisor.put(
        url, {"advisors": ["advisor2"], "groups": ["milan-desk"]}, format="json"
    )
    assert again.json() == response.json()
    assert take().changes(before) == []


@pytest.mark.parametrize(
    ("body", "status", "field", "message"),
    [
        ({"advisors": ["nobody"]}, 404, "advisors", "'nobody' is not an advisor of this tenant."),
        ({"advisors": ["supervisor"]}, 404, "advisors", "'supervisor' is not an advisor"),
        ({"advisors": ["outsider"]}, 404, "advisors", "'outsider' is not an advisor"),
        ({"advisors": [], "groups": ["mixed"]}, 404, "groups", "'mixed' is not a group of"),
        ({"advisors": "advisor"}, 400, "advisors", 'Expected a list of items but got type "str"'),
        ({"groups": []}, 400, "advisors", "This field is required."),
    ],
)
def test_only_the_tenants_advisors_and_groups_can_be_chosen(
    as_supervisor, personas, body, status, field, message
):
    mixed = Group.objects.create(name="mixed")  # holds someone of another tenant
    personas.advisor2.groups.add(mixed)
    personas.outsider.groups.add(mixed)
    before = take()
    response = as_supervisor.put("/api/v1/clients/emma/advisors/", body, format="json")
    assert response.status_code == status
    assert response.json()["error"]["fields"][field][0].startswith(message)
    assert take().changes(before) == []
