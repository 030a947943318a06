"""What a person or a job changes reaches the agent at once: after a review decision, a
forget, a tier move or a job, the very next ``POST /api/v1/context/`` reads it, with no
worker running (work queued for one stays queued). And an open conflict reaches the agent
as one answer, marked disputed, with its review item already in the queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from curation.models import ReviewItem
from memories.models import Memory
from memories.services.jobs.runner import job_run
from profiles.models import Profile
from tests.support import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_worker(monkeypatch):
    """django-q2 as in production with no worker started: a queued task waits in the
    broker's table and nothing runs it."""
    monkeypatch.setattr(Conf, "SYNC", False)


@pytest.fixture
def supervisor_key(personas):
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    return key


def _api(api_client, key, path, body):
    return api_client.post(path, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")


def _context(api_client, key, message="Where does the client live?") -> dict:
    body = {"client": "emma", "message": message, "explain": True}
    response = _api(api_client, key, "/api/v1/context/", body)
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def madrid_or_sevilla(post_event):
    """The client said Madrid today, then an import brought "Sevilla" observed a month
    earlier: recorded later but older, so a conflict for a person to settle."""
    madrid = post_event("I live in Madrid.")["memories"][0]
    sevilla = post_event("I live in Sevilla.", days_ago=30)["memories"][0]
    assert (sevilla["action"], sevilla["related"]["id"]) == ("conflict", madrid["id"])
    return Memory.objects.get(pk=madrid["id"]), Memory.objects.get(pk=sevilla["id"])


def test_a_conflict_decided_by_the_api_reaches_the_context_at_once(
    api_client,
    personas,
    madrid_or_sevilla,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    madrid, sevilla = madrid_or_sevilla
    item = ReviewItem.objects.get(memory=sevilla, other_memory=madrid, state="open")
    with django_capture_on_commit_callbacks(execute=True):
        response = _api(
            api_client,
            supervisor_key,
            f"/api/v1/review/{item.pk}/decide/",
            {"decision": "accept_new", "reason": "She moved back."},
        )
    assert response.status_code == 200, response.json()

    context = _context(api_client, supervisor_key)
    # The decided value reaches the agent's text (as relevant to the message, or in the
    # profile: whichever section shows it first); the one it replaced does not.
    assert "I live in Sevilla." in context["text"] and "Madrid" not in context["text"]
    assert [e["text"] for e in context["profile"]["static"]] == ["I live in Sevilla."]
    profile = Profile.objects.get(client=personas.client)
    assert [e["text"] for e in profile.static] == ["I live in Sevilla."]
    decided_at = ReviewItem.objects.get(pk=item.pk).decided_at
    assert decided_at is not None
    assert profile.refreshed_at >= decided_at


def test_a_conflict_decided_on_the_page_reaches_the_context_at_once(
    client,
    api_client,
    personas,
    madrid_or_sevilla,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    madrid, sevilla = madrid_or_sevilla
    item = ReviewItem.objects.get(memory=sevilla, other_memory=madrid, state="open")
    client.force_login(personas.supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/review/{item.pk}/decide/", {"decision": "keep_old"}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200

    context = _context(api_client, supervisor_key)
    assert "I live in Madrid." in context["text"] and "Sevilla" not in context["text"]
    assert [e["text"] for e in context["profile"]["static"]] == ["I live in Madrid."]
    # the client's page shows the same stable facts
    page = client.get(f"/clients/{personas.client.pk}/").content.decode()
    profile_card = page[page.index('id="profile-title"') :].split("</section>")[0]
    assert "I live in Madrid." in profile_card
    assert "Sevilla" not in profile_card


def test_a_forget_reaches_the_context_at_once(
    api_client,
    personas,
    post_event,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    kept = post_event("I prefer to be contacted by email.")["memories"][0]
    gone = post_event("I work at Lloyds Bank.")["memories"][0]
    assert "I work at Lloyds Bank." in _context(api_client, supervisor_key)["text"]
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.delete(
            f"/api/v1/memories/{gone['id']}/", HTTP_AUTHORIZATION=f"Bearer {supervisor_key}"
        )
    assert response.status_code in (200, 204)

    context = _context(api_client, supervisor_key)
    assert "Lloyds" not in context["text"]
    assert [e["memory"] for e in context["profile"]["static"]] == [kept["id"]]


def test_a_tier_override_reaches_the_context_at_once(
    client,
    api_client,
    personas,
    post_event,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    memory = post_event("I prefer to be contacted by email.")["memories"][0]
    client.force_login(personas.supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/memories/{memory['id']}/tier/", {"tier": "core", "pin": "on"})

    context = _context(api_client, supervisor_key, message="How is the weather?")
    assert [m["id"] for m in context["core"]] == [memory["id"]]
    assert context["text"].splitlines()[2:4] == [
        "Core memories:",
        "- I prefer to be contacted by email.",
    ]


def test_a_job_that_expires_memories_reaches_the_context_at_once(
    api_client,
    personas,
    post_event,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    post_event("I prefer to be contacted by email.")
    stale = factories.MemoryFactory.create(
        client=personas.client,
        kind="operational",
        category="",
        content="Waiting for the bank transfer to clear.",
        observed_at=timezone.now() - timedelta(days=2),
    )
    # A write about the client that a worker refreshed: the profile holds the operational note.
    post_event("I like sailing.")
    assert "Waiting for the bank transfer" in _context(api_client, supervisor_key)["text"]

    with django_capture_on_commit_callbacks(execute=True):
        job_run("ttl_sweep")
    assert Memory.objects.get(pk=stale.pk).status == "expired"
    assert OrmQ.objects.exists()  # the queued refresh is still waiting for a worker

    context = _context(api_client, supervisor_key)
    assert "Waiting for the bank transfer" not in context["text"]
    assert stale.pk not in {e["memory"] for e in context["profile"]["dynamic"]}


def test_an_open_conflict_is_in_the_queue_at_once_and_reaches_the_agent_as_one_disputed_answer(
    api_client,
    personas,
    post_event,
    supervisor_key,
    no_worker,
    django_capture_on_commit_callbacks,
):
    madrid = post_event("I live in Madrid.")["memories"][0]
    with django_capture_on_commit_callbacks(execute=True):
        response = _api(
            api_client,
            supervisor_key,
            "/api/v1/events/",
            {
                "client": "emma",
                "content": "I live in Sevilla.",
                "observed_at": (timezone.now() - timedelta(days=30)).isoformat(),
            },
        )
    sevilla = response.json()["memories"][0]
    assert sevilla["action"] == "conflict"
    # In the queue before any worker ran.
    item = ReviewItem.objects.get(type="conflict", state="open")
    assert (str(item.memory_id), str(item.other_memory_id)) == (sevilla["id"], madrid["id"])

    context = _context(api_client, supervisor_key, message="Where do you live?")
    lines = [line for line in context["text"].splitlines() if "I live in" in line]
    # One answer: the more recent statement, saying it is disputed and by what.
    assert len(lines) == 1, context["text"]
    assert lines[0].endswith(
        "I live in Madrid. (disputed: a conflicting statement, “I live in Sevilla.”, "
        "waits for review)"
    )
    shown = [m["id"] for m in context["memories"]] + [
        e["memory"] for e in context["profile"]["static"]
    ]
    assert sevilla["id"] not in shown
    [hit] = [m for m in context["memories"] if m["id"] == madrid["id"]]
    assert hit["disputed_by"] == [sevilla["id"]]


def test_a_memory_disputed_twice_names_both_and_the_others_are_left_out(
    api_client, personas, supervisor_key
):
    c = personas.client
    email = factories.MemoryFactory.create(
        client=c, content="Prefers email.", category="preference", importance=0.9
    )
    rivals = [
        factories.MemoryFactory.create(client=c, content=text, category="preference")
        for text in ("Prefers phone.", "Prefers letters.")
    ]
    for rival in rivals:
        factories.ReviewItemFactory.create(memory=rival, other_memory=email)
    context = _context(api_client, supervisor_key, message="How is the weather?")
    assert context["text"] == (
        f"Today is {timezone.localdate().isoformat()}.\n\n"
        "Client profile:\n- Prefers email. (disputed: conflicting statements, "
        "“Prefers phone.” and “Prefers letters.”, wait for review)"
    )
    [entry] = context["profile"]["static"]
    assert sorted(entry["disputed_by"]) == sorted(str(r.pk) for r in rivals)
