"""What a search may reach of a client's memory, page and API alike: the client's own
login and an heir read their live core tier only, whatever status or tier they ask for;
those who read every tier read forgotten and superseded memories when they ask.

Both doors narrow the filters through one function, ``permissions.readable_filters``."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db

# (content, tier, status) of each client's memories; every one mentions meetings.
HELD = [
    ("Prefers afternoon meetings.", "core", "active"),
    ("Prefers morning meetings.", "core", "deleted"),
    ("Prefers evening meetings.", "core", "superseded"),
    ("Prefers meetings by video.", "recall", "active"),
]
LIVE_CORE = ["Prefers afternoon meetings."]
EVERY = sorted(content for content, _, _ in HELD)
# Per status asked: what those who read every tier get.
FULL = {
    "deleted": ["Prefers morning meetings."],
    "superseded": ["Prefers evening meetings."],
    "all": EVERY,
    "live": ["Prefers afternoon meetings.", "Prefers meetings by video."],
}
STATUSES = list(FULL)


@pytest.fixture
def held(personas):
    for client in (personas.client, personas.heir_client):
        for content, tier, status in HELD:
            factories.MemoryFactory.create(client=client, content=content, tier=tier, status=status)
    return personas


def _shown(response) -> list[str]:
    found = re.findall(
        r'class="memory-content" href="[^"]+">([^<]+)</a>', response.content.decode()
    )
    return sorted(found)


def _page(client, user, target, status):
    if user is not None:
        client.force_login(user)
    url = reverse("profiles:client-memories", args=[target.pk])
    return client.get(url, {"q": "meetings", "status": status}, HTTP_HX_REQUEST="true")


def _api(user, tenant, target, status):
    _, raw = factories.api_key_for(user, tenant)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    filters = (
        {}
        if status == "live"
        else {
            "status": [
                "active",
                "deleted",
                "superseded",
                "candidate",
                "promoted",
                "merged",
                "expired",
            ]
            if status == "all"
            else [status]
        }
    )
    return api.post(
        "/api/v1/search/",
        {"client": target.external_ref, "query": "meetings", "k": 20, "filters": filters},
        format="json",
    )


# persona → (the client they search, what they get: "core" or "full"); None: 404.
OWN = {
    "client_user": ("client", "core"),
    "heir": ("heir_client", "core"),
    "advisor": ("client", "full"),
    "supervisor": ("heir_client", "full"),
    "admin": ("client", "full"),
}
CELLS = [(persona, status) for persona in OWN for status in STATUSES]


@pytest.mark.parametrize(("persona", "status"), CELLS)
def test_the_page_and_the_api_search_the_same_rows(client, held, persona, status):
    target_name, reach = OWN[persona]
    user, target = getattr(held, persona), getattr(held, target_name)
    expected = LIVE_CORE if reach == "core" else FULL[status]

    page = _page(client, user, target, status)
    api = _api(user, held.tenant, target, status)

    assert page.status_code == 200
    assert _shown(page) == expected
    assert api.status_code == 200, api.content
    assert sorted(r["content"] for r in api.json()["results"]) == expected


@pytest.mark.parametrize(
    ("persona", "target_name"),
    [
        ("client_user", "heir_client"),
        ("heir", "client"),
        ("heir", "parent"),
        ("advisor2", "client"),
        ("outsider", "client"),
    ],
)
@pytest.mark.parametrize("status", ["deleted", "all"])
def test_someone_elses_client_is_not_found_and_nothing_changes(
    client, held, persona, target_name, status
):
    client.force_login(getattr(held, persona))
    before = take()

    response = _page(client, None, getattr(held, target_name), status)

    assert response.status_code == 404
    assert "meetings" not in response.content.decode()
    assert take().changes(before) == []
