"""Operational context is gone the moment its ``expires_at`` passes, for every reader,
whether or not the TTL sweep (every 3 hours) has marked it expired yet: the client's own
pages and API, a search that asks for active memories, and the profile a context shows."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from memories.models import Memory
from profiles.services.profile import profile_refresh
from tests.support import factories

pytestmark = pytest.mark.django_db

SAID = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
LATER = SAID + timedelta(days=3)  # past its expiry; the sweep has not run


@pytest.fixture
def deploy(post_event, personas):
    """An operational memory in Emma's core tier, and her profile built while it held."""
    with time_machine.travel(SAID, tick=False):
        post_event("Deploy job 17 is running.", source="tool", speaker="deploy")
        memory = Memory.objects.get(content="Deploy job 17 is running.")
        assert memory.kind == "operational"
        assert memory.expires_at is not None and memory.expires_at < LATER
        Memory.objects.filter(pk=memory.pk).update(tier="core")
        profile = profile_refresh(client=personas.client)
        assert str(memory.pk) in {e["memory"] for e in profile.dynamic}
    return memory


def _api(api_client, user, tenant):
    _, key = factories.api_key_for(user, tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api_client


def test_the_client_no_longer_sees_it(api_client, personas, deploy):
    api = _api(api_client, personas.client_user, personas.tenant)
    with time_machine.travel(SAID + timedelta(minutes=5), tick=False):
        assert api.get(f"/api/v1/memories/{deploy.pk}/").status_code == 200
    with time_machine.travel(LATER, tick=False):
        assert api.get(f"/api/v1/memories/{deploy.pk}/").status_code == 404
        found = api.post(
            "/api/v1/search/", {"client": "emma", "query": "deploy job"}, format="json"
        )
        assert found.status_code == 200
        assert found.json()["results"] == []
    assert Memory.objects.get(pk=deploy.pk).status == "active"  # the sweep has not run


def test_asking_for_active_memories_means_active_now(api_client, personas, deploy):
    api = _api(api_client, personas.supervisor, personas.tenant)
    body = {"client": "emma", "query": "deploy job"}
    with time_machine.travel(LATER, tick=False):
        active = api.post(
            "/api/v1/search/", {**body, "filters": {"status": ["active"]}}, format="json"
        )
        expired = api.post(
            "/api/v1/search/", {**body, "filters": {"status": ["expired"]}}, format="json"
        )
    assert active.status_code == 200, active.json()
    assert active.json()["results"] == []
    assert [hit["id"] for hit in expired.json()["results"]] == [str(deploy.pk)]


def test_the_context_shows_the_profile_as_it_holds_now(api_client, personas, deploy):
    api = _api(api_client, personas.supervisor, personas.tenant)
    with time_machine.travel(LATER, tick=False):
        answer = api.post(
            "/api/v1/context/",
            {"client": "emma", "message": "how is the deploy?", "explain": True},
            format="json",
        )
    assert answer.status_code == 200
    shown = answer.json()
    assert "Deploy job 17" not in shown["text"]
    assert str(deploy.pk) not in {e["memory"] for e in shown["profile"]["dynamic"]}
