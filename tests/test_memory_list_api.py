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
    Memory.objects.filter(pk=gone).update(status=Status.SUPERSEDED)
    # Still active, but past its expiry: search already hides it, and so must the list.
    Memory.objects.filter(pk=past).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = _list(api_client, agent_key)
    assert [m["content"] for m in response.json()["results"]] == [
        "I prefer to be contacted by email."
    ]
