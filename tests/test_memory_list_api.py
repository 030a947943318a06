"""GET /api/v1/memories/: the client's newest live memories, as search would see them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory, Status

pytestmark = pytest.mark.django_db


def _list(api_client, key, **params):
    return api_client.get(
        "/api/v1/memories/", {"client": "emma", **params}, HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def test_lists_the_newest_live_memories_first(api_client, agent_key, post_event):
    post_event("I live in Bristol.", days_ago=3)
    post_event("I prefer to be contacted by email.", days_ago=1)
    response = _list(api_client, agent_key)
    assert response.status_code == 200
    assert [m["content"] for m in response.json()["results"]] == [
        "I prefer to be contacted by email.",
        "I live in Bristol.",
    ]


def test_leaves_out_what_has_expired_or_stopped_being_live(api_client, agent_key, post_event):
    post_event("I prefer to be contacted by email.")
    gone = post_event("I live in Bristol.")["memories"][0]["id"]
    past = post_event("I am travelling to Rome this week.")["memories"][0]["id"]
    job = post_event("Backup job 41 is running.", source="tool", speaker="backup")
    Memory.objects.filter(pk=gone).update(status=Status.SUPERSEDED)
    # A plan whose day has gone by is past, and listed as such; operational context past its
    # expiry has left memory (search hides it too).
    Memory.objects.filter(pk__in=[past, job["memories"][0]["id"]]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    response = _list(api_client, agent_key)
    assert [(m["content"], m["past"]) for m in response.json()["results"]] == [
        ("I am travelling to Rome this week.", True),
        ("I prefer to be contacted by email.", False),
    ]
