"""Profile refreshes are coalesced: many writes about a client queue one refresh, and a
refresh is done once even when two workers look for stale profiles at the same time."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import transaction

from memories.models import Client
from memories.services.jobs.runner import job_run
from memories.services.write.ingest import EventInput, event_ingest, events_ingest
from profiles.models import Profile
from profiles.services.refresh import profiles_refresh_stale
from tests.support import factories
from tests.support.jobs import in_parallel

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    """What writes queue, instead of running it (as a busy worker would)."""
    calls: list[list[str]] = []
    monkeypatch.setattr(
        "memories.services.write.staleness._profiles_stale", lambda ids: calls.append(ids)
    )
    return calls


def _ingest(personas, content, client="emma", n=[0]):  # noqa: B006 (a counter on purpose)
    n[0] += 1
    return event_ingest(
        user=personas.advisor,
        tenant=personas.tenant,
        item=EventInput(client=client, content=content, external_id=f"e{n[0]}"),
    )


def test_many_events_about_one_client_queue_one_refresh(
    personas, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for statement in ("I live in Bristol.", "I work at Lloyds Bank.", "I like sailing."):
            _ingest(personas, statement)
    assert queued == [[str(personas.client.pk)]]
    assert profiles_refresh_stale(client_ids=queued[0]) == 1
    profile = Profile.objects.get(client=personas.client)
    assert profile.version == 1
    assert {entry["text"] for entry in profile.static} == {
        "I live in Bristol.",
        "I work at Lloyds Bank.",
        "I like sailing.",
    }
    # Refreshed: the next write queues a refresh again; a second run of the old task is a
    # no-op.
    assert profiles_refresh_stale(client_ids=queued[0]) == 0
    with django_capture_on_commit_callbacks(execute=True):
        _ingest(personas, "I have two children.")
    assert queued == [[str(personas.client.pk)]] * 2


def test_a_batch_queues_one_refresh_for_all_its_clients(
    personas, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        events_ingest(
            user=personas.advisor,
            tenant=personas.tenant,
            items=[
                EventInput(client="emma", content="I live in Bristol.", external_id="b1"),
                EventInput(client="giulia", content="I live in Turin.", external_id="b2"),
                EventInput(client="emma", content="I work at Lloyds Bank.", external_id="b3"),
            ],
        )
    assert queued == [sorted([str(personas.client.pk), str(personas.parent.pk)])]


def test_small_talk_marks_nothing(personas, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _ingest(personas, "Thanks a lot!")
    assert queued == []
    assert Client.objects.get(pk=personas.client.pk).profile_stale_since is None


def test_the_scheduled_job_rebuilds_stale_and_aged_profiles(personas):
    at = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    with time_machine.travel(at, tick=False):
        factories.MemoryFactory.create(client=personas.client, content="I live in Bristol.")
        Client.objects.filter(pk=personas.client.pk).update(profile_stale_since=at)
        aged = factories.ProfileFactory.create(client=personas.parent)
        Profile.objects.filter(pk=aged.pk).update(refreshed_at=at - timedelta(hours=25))
        young = factories.ProfileFactory.create(client=personas.heir_client)
        run = job_run("refresh_profiles")
        assert (run.outcome, run.counts) == ("succeeded", {"stale": 1, "aged": 1})
        assert Profile.objects.get(client=personas.client).static[0]["text"] == (
            "I live in Bristol."
        )
        assert Profile.objects.get(pk=aged.pk).refreshed_at == at
        assert Profile.objects.get(pk=young.pk).version == 0
        assert job_run("refresh_profiles").counts == {}


@pytest.mark.django_db(transaction=True)
def test_two_workers_refresh_each_stale_profile_once(personas, settings):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 1}
    clients = [personas.client, personas.parent, personas.heir_client, personas.advisor2_client]
    Client.objects.filter(pk__in=[c.pk for c in clients]).update(
        profile_stale_since=datetime(2026, 3, 10, tzinfo=UTC)
    )
    first, second = in_parallel(profiles_refresh_stale, profiles_refresh_stale)
    assert first + second == len(clients)
    assert sorted(Profile.objects.values_list("version", flat=True)) == [1] * len(clients)
    assert not Client.objects.filter(profile_stale_since__isnull=False).exists()


@pytest.mark.django_db(transaction=True)
def test_a_queued_refresh_waits_for_a_write_that_holds_its_client(personas):
    """The write in flight holds the client's row and, finding it already marked stale,
    queues nothing: the refresh already queued must not skip the client and leave its
    profile stale, but wait for that write and rebuild with what it stored."""
    client = personas.client
    Client.objects.filter(pk=client.pk).update(profile_stale_since=datetime.now(UTC))
    holding, release = threading.Event(), threading.Event()

    def write_in_flight():
        with transaction.atomic():
            list(Client.objects.select_for_update(no_key=True).filter(pk=client.pk))
            factories.MemoryFactory.create(client=client, content="Prefers letters.")
            holding.set()
            release.wait(timeout=60)
        return "committed"

    def queued_refresh():
        holding.wait(timeout=60)
        threading.Timer(0.5, release.set).start()  # the write commits while it waits
        return profiles_refresh_stale(client_ids=[client.pk])

    assert in_parallel(write_in_flight, queued_refresh) == ["committed", 1]
    client.refresh_from_db()
    assert client.profile_stale_since is None
    profile = Profile.objects.get(client=client)
    assert "Prefers letters." in [entry["text"] for entry in profile.static + profile.dynamic]
