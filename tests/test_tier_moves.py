"""Tier moves by access (seed 000 §1.1) and the ranking refresh."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from memories.models import AuditEntry, Memory, MemoryAccess
from memories.services.jobs.ranking import ranking_refresh
from memories.services.jobs.runner import JobCounts
from memories.services.jobs.tiers import hot_memories_promote, tiers_move
from tests.support import factories
from tests.support.jobs import Crash, changed, crash_on_call, in_parallel, run, snapshot

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _memory(client, content, *, tier="recall", seen=1, read=None, reads=(), **fields):
    """``seen``: days since last restated; ``read``: days since last read (rolled up);
    ``reads``: days ago of reads not rolled up yet."""
    with time_machine.travel(NOW - 200 * DAY, tick=False):
        memory = factories.MemoryFactory.create(client=client, content=content, tier=tier, **fields)
    updates = {"last_seen_at": NOW - seen * DAY}
    if read is not None:
        updates["last_accessed_at"] = NOW - read * DAY
    Memory.objects.filter(pk=memory.pk).update(**updates)
    for days_ago in reads:
        MemoryAccess.objects.create(memory=memory, client=client, at=NOW - days_ago * DAY)
    return memory


@pytest.fixture
def tiers_world(personas):
    c = personas.client
    hot_reads = (0.5, 1, 2, 3, 6)
    world = {
        "core_idle": _memory(c, "Prefers email.", tier="core", seen=30, read=15),
        "core_used": _memory(c, "Speaks Italian.", tier="core", seen=30, read=13),
        "core_pinned": _memory(c, "Is vegetarian.", tier="core", seen=60, read=60),
        "recall_cold": _memory(c, "Liked opera in 2019.", seen=91),
        "recall_warm": _memory(c, "Plays tennis.", seen=89),
        "archived_read": _memory(
            c, "Owns a flat in Lisbon.", tier="archival", seen=200, reads=(5,)
        ),
        "hot": _memory(c, "Wants to retire early.", seen=3, reads=hot_reads),
        "hot_but_old": _memory(c, "Has two children.", seen=10, reads=hot_reads),
        "read_four_times": _memory(c, "Lives in Bristol.", seen=1, reads=(1, 2, 3, 4)),
        "read_long_ago": _memory(c, "Works at Lloyds.", seen=1, reads=(1, 2, 8, 9, 10)),
    }
    Memory.objects.filter(pk=world["core_pinned"].pk).update(tier_pinned=True)
    return world


EXPECTED = {
    "core_idle": "recall",
    "recall_cold": "archival",
    "archived_read": "recall",
    "hot": "core",
}


def _assert_moved(world):
    tiers = dict(Memory.objects.values_list("pk", "tier"))
    for name, memory in world.items():
        assert tiers[memory.pk] == EXPECTED.get(name, memory.tier), name


def test_tiers_move_exactly_by_access(personas, tiers_world):
    before = snapshot(("tier",))
    with time_machine.travel(NOW, tick=False):
        counts = run(tiers_move)
    assert counts == {
        "core_to_recall": 1,
        "recall_to_archival": 1,
        "archival_to_recall": 1,
        "recall_to_core": 1,
        "accesses_pruned": 3,
    }
    _assert_moved(tiers_world)
    assert changed(before, snapshot(("tier",))) == {tiers_world[n].pk for n in EXPECTED}
    assert AuditEntry.objects.filter(action="memory.set_tier").count() == 4
    with time_machine.travel(NOW, tick=False):
        assert run(tiers_move) == {}
    _assert_moved(tiers_world)


def test_the_core_budget_holds(personas, settings):
    settings.MEMORYHUB = {"CORE_TIER_MAX_BYTES": 100}
    c = personas.client
    most = _memory(c, "a" * 60, seen=1, reads=(1, 1, 1, 1, 1, 1))
    second = _memory(c, "b" * 60, seen=1, reads=(1, 1, 1, 1, 1))
    with time_machine.travel(NOW, tick=False):
        assert run(tiers_move) == {"recall_to_core": 1, "core_full": 1}
    assert Memory.objects.get(pk=most.pk).tier == "core"
    assert Memory.objects.get(pk=second.pk).tier == "recall"


def test_interrupted_then_rerun_ends_the_same(personas, tiers_world, settings, monkeypatch):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 1}
    crash_on_call(monkeypatch, "memories.services.jobs.tiers.audit_entry", 2)
    with time_machine.travel(NOW, tick=False):
        with pytest.raises(Crash):
            run(tiers_move)
        assert Memory.objects.get(pk=tiers_world["core_idle"].pk).tier == "recall"
        run(tiers_move)
    _assert_moved(tiers_world)


@pytest.mark.django_db(transaction=True)
def test_two_workers_move_each_memory_once(personas, settings):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 2}
    idle = [
        _memory(client, f"Old preference {n}.", tier="archival", seen=300, reads=(2,))
        for client in (personas.client, personas.parent)
        for n in range(5)
    ]
    with time_machine.travel(NOW, tick=False):
        first, second = in_parallel(lambda: run(tiers_move), lambda: run(tiers_move))
    moved = first.get("archival_to_recall", 0) + second.get("archival_to_recall", 0)
    assert moved == len(idle)
    assert AuditEntry.objects.filter(action="memory.set_tier").count() == len(idle)


def test_ranking_refresh(personas):
    c = personas.client
    with time_machine.travel(NOW, tick=False):
        fresh = factories.MemoryFactory.create(client=c, content="Wants to retire early.")
        factories.EvidenceFactory.create(memory=fresh)
        Memory.objects.filter(pk=fresh.pk).update(evidence_count=1)
        used = factories.MemoryFactory.create(
            client=c, content="Lives in Bristol.", usage_count=4, status="promoted"
        )
        gone = factories.MemoryFactory.create(
            client=c, content="Lived in Leeds.", status="superseded"
        )
        assert run(ranking_refresh) == {"updated": 2, "memories": 2}
        assert run(ranking_refresh) == {"memories": 2}
    scores = dict(Memory.objects.values_list("pk", "rank_score"))
    # Weights (read path + evidence): recency .10, usage 0, evidence .05, confidence .05
    # (0.7 here), importance .05 (0.5 here), canonicity .05 (0.6 active, 1.0 promoted),
    # normalised by their sum .30.
    assert scores[fresh.pk] == round((0.10 + 0.05 + 0.05 * 0.7 + 0.05 * 0.5 + 0.05 * 0.6) / 0.30, 4)
    assert scores[used.pk] == round((0.10 + 0 + 0.05 * 0.7 + 0.05 * 0.5 + 0.05 * 1.0) / 0.30, 4)
    assert scores[gone.pk] is None


def test_a_hot_memory_replaced_before_its_move_is_left_as_it_is(personas):
    """An ingest can supersede a memory between the job finding it hot and moving it: the
    job goes on with the others (it failed whole before)."""
    c = personas.client
    replaced = _memory(c, "I bank with Barclays.", seen=1, reads=(1, 1, 1, 1, 1))
    kept = _memory(c, "I sail on weekends.", seen=1, reads=(1, 1, 1, 1, 1))
    Memory.objects.filter(pk=replaced.pk).update(status="superseded")
    counts = JobCounts()
    hot_memories_promote([replaced.pk, kept.pk], counts)
    assert dict(counts) == {"no_longer_live": 1, "recall_to_core": 1}
    assert Memory.objects.get(pk=replaced.pk).tier == "recall"
    assert Memory.objects.get(pk=kept.pk).tier == "core"


@pytest.mark.django_db(transaction=True)
def test_a_tier_move_does_not_wait_for_a_read_being_logged(personas):
    """A search logs its reads: the access row's foreign key check holds its memory FOR KEY
    SHARE until its transaction ends. A tier move locks the client's core memories only
    against other moves (NO KEY UPDATE), so it goes on: with FOR UPDATE it waited, and a
    search waiting in turn for the job's update of another memory made a deadlock."""
    import threading

    from django.db import connection, transaction

    from memories.services.write.lifecycle import memory_set_tier

    c = personas.client
    core = factories.MemoryFactory.create(client=c, content="Core fact.", tier="core")
    other = factories.MemoryFactory.create(client=c, content="Other fact.")
    logged, done = threading.Event(), threading.Event()

    def reader() -> None:
        try:
            with transaction.atomic():
                # What the access row's foreign key check takes on its memory.
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT 1 FROM memories_memory WHERE id = %s FOR KEY SHARE", [core.pk]
                    )
                logged.set()
                done.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert logged.wait(30)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '3s'")
            memory_set_tier(memory=other, tier="archival", actor_label="test")
    finally:
        done.set()
        thread.join(30)
    assert Memory.objects.get(pk=other.pk).tier == "archival"


def test_a_tier_set_to_where_it_is_changes_and_audits_nothing_but_a_pin(personas):
    from memories.selectors.audit import audit_rows
    from memories.services.write.lifecycle import memory_set_tier

    core = factories.MemoryFactory.create(client=personas.client, content="Core.", tier="core")
    memory_set_tier(memory=core, tier="core")
    assert not AuditEntry.objects.filter(action="memory.set_tier").exists()
    memory_set_tier(memory=core, tier="core", pin=True)
    memory_set_tier(memory=core, tier="core", pin=True)
    entries = AuditEntry.objects.filter(action="memory.set_tier")
    [row] = audit_rows(personas.supervisor, personas.tenant.pk, entries)
    assert row.details == [("tier", "core"), ("pinned", "yes")]
    assert Memory.objects.get(pk=core.pk).tier_pinned
