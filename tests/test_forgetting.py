"""TTL sweep and decay: exactly the memories that ran out of time change state, once."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from memories.models import AuditEntry, Client, JobRun, Memory
from memories.services.jobs.forgetting import decay_sweep, ttl_sweep
from memories.services.jobs.runner import job_run
from tests.support import factories
from tests.support.jobs import Crash, changed, crash_on_call, in_parallel, run, snapshot

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield


def _memory(client, content, *, ago=timedelta(0), **fields):
    return factories.MemoryFactory.create(
        client=client, content=content, observed_at=NOW - ago, **fields
    )


@pytest.fixture
def ttl_world(personas, frozen):
    c = personas.client
    derived = _memory(c, "Recurring: I met James for coffee.", kind="semantic")

    def consolidated(memory):
        factories.RelationFactory.create(source=derived, target=memory, type="derives")
        return memory

    w = {
        "op_old": _memory(c, "Deploy job 17 is running.", kind="operational", ago=25 * HOUR),
        "op_new": _memory(c, "Deploy job 18 is running.", kind="operational", ago=23 * HOUR),
        "op_promoted": _memory(
            c, "Deploy job 9 is running.", kind="operational", ago=30 * HOUR, status="promoted"
        ),
        "op_due": _memory(
            c, "Reminder job 3 runs until noon.", kind="operational", expires_at=NOW - HOUR
        ),
        # A plan whose day has gone by is past, not gone.
        "past": _memory(c, "Meeting on Monday at 10.", expires_at=NOW - timedelta(minutes=1)),
        "future": _memory(c, "Meeting on Friday at 10.", expires_at=NOW + DAY),
        "ep_old": consolidated(
            _memory(c, "I met James for coffee last Tuesday.", kind="episodic", ago=15 * DAY)
        ),
        "ep_recent": consolidated(
            _memory(c, "I met James for coffee on Friday.", kind="episodic", ago=13 * DAY)
        ),
        "ep_raw": _memory(c, "I visited the Leeds office.", kind="episodic", ago=15 * DAY),
        "gone": _memory(c, "Lunch on Sunday.", expires_at=NOW - DAY, status="superseded"),
        "foreign": _memory(
            personas.foreign_client, "Call job 2 is queued.", kind="operational", expires_at=NOW
        ),
        "derived": derived,
    }
    return w


# Raw episodes are kept, consolidated or not: for many statements they are the only record.
EXPECTED = {"op_old": "operational", "op_due": "past_expires_at"}


def _assert_swept(w):
    for name, memory in w.items():
        memory.refresh_from_db()
        if name in EXPECTED:
            assert (memory.status, memory.invalidated_at) == ("expired", NOW), name
            assert memory.status_reason.startswith("expired: "), name
        elif name == "gone":
            assert memory.status == "superseded"
        else:
            assert (memory.status, memory.invalidated_at) == (
                "promoted" if name == "op_promoted" else "active",
                None,
            ), name


def test_ttl_sweep_expires_exactly_what_ran_out(personas, ttl_world):
    before = snapshot()
    counts = run(ttl_sweep, tenant_id=personas.tenant.pk)
    assert counts == {"past_expires_at": 1, "operational": 1}
    assert changed(before, snapshot()) == {ttl_world[name].pk for name in EXPECTED}
    _assert_swept(ttl_world)
    assert sorted(
        AuditEntry.objects.filter(action="memory.expired").values_list("object_id", flat=True)
    ) == sorted(str(ttl_world[name].pk) for name in EXPECTED)
    # Twice is once.
    again = snapshot()
    assert run(ttl_sweep, tenant_id=personas.tenant.pk) == {}
    assert snapshot() == again
    # Without a tenant, the other tenant's expired memory goes too, and only it.
    assert run(ttl_sweep) == {"past_expires_at": 1}
    assert changed(again, snapshot()) == {ttl_world["foreign"].pk}


def test_ttl_sweep_interrupted_then_rerun_ends_the_same(personas, ttl_world, settings, monkeypatch):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 1}
    # One profile mark per batch: the second batch dies after the first committed.
    crash_on_call(monkeypatch, "memories.services.jobs.forgetting.clients_mark_profile_stale", 2)
    with pytest.raises(Crash):
        job_run("ttl_sweep", tenant_id=personas.tenant.pk)
    failed = JobRun.objects.get(job="ttl_sweep")
    assert (failed.outcome, failed.counts) == ("failed", {"past_expires_at": 1})
    assert "Crash: injected crash" in failed.error
    assert Memory.objects.filter(status="expired").count() == 1

    rerun = job_run("ttl_sweep", tenant_id=personas.tenant.pk)
    assert (rerun.outcome, rerun.counts) == ("succeeded", {"operational": 1})
    _assert_swept(ttl_world)
    assert AuditEntry.objects.filter(action="memory.expired").count() == 2


def test_ttl_sweep_prunes_old_run_logs(personas, frozen):
    old = factories.JobRunFactory.create(job="fusion")
    JobRun.objects.filter(pk=old.pk).update(started_at=NOW - 91 * DAY)
    kept = factories.JobRunFactory.create(job="fusion")
    JobRun.objects.filter(pk=kept.pk).update(started_at=NOW - 89 * DAY)
    assert run(ttl_sweep) == {"job_runs_pruned": 1}
    assert list(JobRun.objects.values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.django_db(transaction=True)
def test_two_workers_sweep_each_memory_once(personas, settings):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 2}
    with time_machine.travel(NOW, tick=False):
        stale = [
            _memory(
                client,
                f"Build {n} for {client.external_ref} is running.",
                kind="operational",
                ago=2 * DAY,
            )
            for client in (personas.client, personas.parent, personas.heir_client)
            for n in range(5)
        ]
        first, second = in_parallel(lambda: run(ttl_sweep), lambda: run(ttl_sweep))
    assert first.get("operational", 0) + second.get("operational", 0) == len(stale)
    assert Memory.objects.filter(status="expired").count() == len(stale)
    audited = list(
        AuditEntry.objects.filter(action="memory.expired").values_list("object_id", flat=True)
    )
    assert sorted(audited) == sorted(str(m.pk) for m in stale)


# --- decay and forgetting ------------------------------------------------------------------


@pytest.fixture
def decay_world(personas, frozen):
    c = personas.client
    w = {
        # confidence 0.7: below 0.1 after (0.7 / 0.1 − 1) / 0.05 = 120 idle days; +30 = 150
        "idle_151": _memory(c, "Likes opera.", ago=151 * DAY, confidence=0.7),
        "idle_149": _memory(c, "Likes tennis.", ago=149 * DAY, confidence=0.7),
        # confidence 0.3: below after 40 idle days; forgotten after 70
        "weak_71": _memory(c, "Might like golf.", ago=71 * DAY, confidence=0.3),
        "read_lately": _memory(c, "Likes sailing.", ago=200 * DAY, confidence=0.7),
        "promoted": _memory(c, "Lives in Bristol.", ago=200 * DAY, status="promoted"),
        "candidate": _memory(c, "Works at Lloyds.", ago=200 * DAY, status="candidate"),
        "pinned": _memory(c, "Has two children.", ago=200 * DAY),
        "fresh": _memory(c, "Wants a new car.", confidence=0.7),
    }
    Memory.objects.filter(pk=w["read_lately"].pk).update(last_accessed_at=NOW - 10 * DAY)
    Memory.objects.filter(pk=w["pinned"].pk).update(tier_pinned=True)
    return w


def test_decay_archives_what_stayed_below_the_floor_for_30_days(personas, decay_world):
    """Cold memories go to the archival tier (kept, still searched); none leaves the live set."""
    w = decay_world
    before = snapshot(("status", "tier"))
    counts = run(decay_sweep)
    assert counts == {"archived": 2, "freshness_updated": 7}
    assert changed(before, snapshot(("status", "tier"))) == {w["idle_151"].pk, w["weak_71"].pk}
    for name in ("idle_151", "weak_71"):
        w[name].refresh_from_db()
        assert (w[name].status, w[name].tier, w[name].invalidated_at) == (
            "active",
            "archival",
            None,
        )
    assert AuditEntry.objects.filter(action="memory.set_tier").count() == 2
    assert (
        Memory.objects.exclude(status="active")
        .exclude(status__in=["promoted", "candidate"])
        .count()
        == 0
    )
    w["idle_149"].refresh_from_db()
    assert w["idle_149"].freshness == round(1 / (1 + 149 * 0.05), 4)
    w["read_lately"].refresh_from_db()
    assert w["read_lately"].freshness == round(1 / (1 + 10 * 0.05), 4)
    w["fresh"].refresh_from_db()
    assert w["fresh"].freshness == 1.0
    # Twice is once.
    again = snapshot()
    assert run(decay_sweep) == {}
    assert snapshot() == again


def test_decay_interrupted_then_rerun_ends_the_same(personas, decay_world, settings, monkeypatch):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 1}
    crash_on_call(monkeypatch, "memories.services.jobs.forgetting.clients_mark_profile_stale", 2)
    with pytest.raises(Crash):
        run(decay_sweep)
    assert Memory.objects.filter(tier="archival").count() == 1
    assert run(decay_sweep) == {"archived": 1}
    assert set(Memory.objects.filter(tier="archival").values_list("pk", flat=True)) == {
        decay_world["idle_151"].pk,
        decay_world["weak_71"].pk,
    }


def test_forgetting_settings_come_from_the_seed_and_can_change(personas, decay_world, settings):
    settings.MEMORYHUB = {"DECAY_ARCHIVE_AFTER_DAYS": 0}
    run(decay_sweep)
    assert Memory.objects.filter(tier="archival").count() == 3  # idle_149 too (> 120 days)


# --- two years on ---------------------------------------------------------------------------

KEPT = {
    "My daughter Alice is at university in Leeds.": "where does her daughter study",
    "I prefer to be contacted by email.": "how to contact her",
    "I work at Rolls-Royce in Derby.": "who is her employer",
    "My risk profile is low.": "risk appetite",
    "I decided to sell the flat in Salford.": "what did she decide about the flat",
    "We went sailing around Mull with my brother.": "sailing trip with her brother",
}


def test_two_years_on_stable_memories_are_still_found_and_passing_ones_are_past(
    post_event, personas
):
    """Nobody reads the client's memory for two years; every job runs. Facts, preferences,
    relationships, decisions and episodes are still found; a plan is found as past;
    operational context is gone."""
    from memories.services.jobs.runner import jobs_run_all
    from memories.services.retrieval import memories_search

    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        for content in KEPT:
            post_event(content, speaker="user", session="s1")
        post_event("Backup job 41 finished.", source="tool", speaker="backup", session="s1")
        post_event("I am in Rome until Friday.", speaker="user", session="s1")
    client = Client.objects.get(tenant=personas.tenant, external_ref="emma")
    with time_machine.travel(start + timedelta(days=730), tick=False):
        runs = jobs_run_all(tenant_id=personas.tenant.pk)
        assert {run.outcome for run in runs} == {"succeeded"}
        for content, query in KEPT.items():
            found = memories_search(client=client, query=query, k=5, record_access=False)
            assert content in [h.memory.content for h in found], query
        gone = Memory.objects.filter(client=client).exclude(status__in=["active"])
        assert list(gone.values_list("content", "status")) == [
            ("Backup job 41 finished.", "expired")
        ]
        found = memories_search(client=client, query="backup job", k=5, record_access=False)
        assert not {h.memory.pk for h in found} & set(gone.values_list("pk", flat=True))
        # The session's summary names Rome too: the plan is among the first, flagged past.
        found = memories_search(client=client, query="rome", k=3, record_access=False)
        [rome] = [h for h in found if h.memory.content == "I am in Rome until Friday."]
        assert rome.scores["past"] == 1.0
