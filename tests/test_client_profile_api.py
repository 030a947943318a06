"""GET /api/v1/clients/{ref}/profile/: the profile and core memories, for every persona."""

import pytest

from profiles.models import Profile
from tests.support import factories

pytestmark = pytest.mark.django_db


def _profile(api_client, user, tenant, ref):
    _, key = factories.api_key_for(user, tenant)
    return api_client.get(f"/api/v1/clients/{ref}/profile/", HTTP_AUTHORIZATION=f"Bearer {key}")


@pytest.fixture
def emma(personas, post_event):
    core = factories.MemoryFactory.create(
        client=personas.client, content="Speaks English and Welsh.", tier="core", importance=0.9
    )
    said = post_event("I prefer to be contacted by email.")["memories"][0]
    return core, said


def test_the_profile_and_core_memories(api_client, personas, emma):
    core, said = emma
    response = _profile(api_client, personas.advisor, personas.tenant, "emma")
    assert response.status_code == 200
    body = response.json()
    assert body["client"] == "emma"
    assert body["core"] == [
        {
            "id": str(core.pk),
            "content": "Speaks English and Welsh.",
            "kind": "semantic",
            "category": core.category,
            "disputed_by": [],
        }
    ]
    assert [(e["memory"], e["text"]) for e in body["profile"]["static"]] == [
        (str(core.pk), "Speaks English and Welsh."),
        (said["id"], "I prefer to be contacted by email."),
    ]
    assert body["profile"]["dynamic"] == []


@pytest.mark.parametrize(
    ("persona", "ref", "status", "sees_profile"),
    [
        ("advisor", "emma", 200, True),
        ("supervisor", "emma", 200, True),
        ("admin", "emma", 200, True),
        ("client_user", "emma", 200, False),  # their own record: core only
        ("advisor2", "emma", 404, False),
        ("outsider", "giulia", 404, False),  # another tenant's client
        ("heir", "giulia", 404, False),  # a parent's record: never
        ("advisor", "nobody", 404, False),
    ],
)
def test_who_may_read_it(api_client, personas, emma, persona, ref, status, sees_profile):
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    profiles_before = Profile.objects.count()
    response = _profile(api_client, user, tenant, ref)
    assert response.status_code == status
    if status == 404:
        assert response.json()["error"]["code"] == "not_found"
        assert Profile.objects.count() == profiles_before
        return
    body = response.json()
    assert [c["content"] for c in body["core"]] == ["Speaks English and Welsh."]
    assert bool(body["profile"]["static"]) is sees_profile


def test_without_a_key(api_client, personas):
    assert api_client.get("/api/v1/clients/emma/profile/").status_code == 401


def test_a_dispute_shows_one_side_naming_the_other(api_client, personas):
    """As in the context: until a supervisor decides, the reader gets one side."""
    from profiles.services.profile import profile_refresh

    email = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email.", category="preference", confidence=0.9
    )
    phone = factories.MemoryFactory.create(
        client=personas.client, content="Prefers phone.", category="preference", confidence=0.9
    )
    factories.ReviewItemFactory.create(memory=phone, other_memory=email)
    profile_refresh(client=personas.client)
    body = _profile(api_client, personas.advisor, personas.tenant, "emma").json()
    assert [(e["text"], e["disputed_by"]) for e in body["profile"]["static"]] == [
        ("Prefers phone.", [str(email.pk)])
    ]
