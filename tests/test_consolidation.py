"""Episodic → semantic consolidation and principle extraction: repeated episodes and
related decisions become candidates with evidence, once."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from memories.models import AuditEntry, Evidence, Memory, Relation
from memories.services.jobs.consolidation import episodes_consolidate
from memories.services.jobs.principles import principles_extract
from tests.support import factories
from tests.support.jobs import Crash, crash_on_call, in_parallel, local_space, run

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
COFFEE, LEEDS, BONDS = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]


@pytest.fixture(autouse=True)
def _local_space(db):
    local_space()


def _embed(memory, vector):
    space = factories.EmbeddingSpaceFactory.create(model="test-3d", dimension=3)
    factories.MemoryEmbeddingFactory.create(memory=memory, space=space, vector=vector)
    Memory.objects.filter(pk=memory.pk).update(needs_embedding=False)
    return memory


def _episode(
    client, content, vector, *, days_ago, source="chat", session=None, kind="episodic", **fields
):
    at = NOW - days_ago * DAY
    with time_machine.travel(at, tick=False):
        memory = factories.MemoryFactory.create(
            client=client,
            content=content,
            kind=kind,
            category="event",
            observed_at=at,
            confidence=0.8,
            importance=0.5,
            **fields,
        )
        event = factories.EventFactory.create(
            client=client, content=content, source=source, observed_at=at, session=session
        )
    factories.EvidenceFactory.create(memory=memory, event=event)
    Memory.objects.filter(pk=memory.pk).update(evidence_count=1)
    return _embed(memory, vector)


def _coffee(client, days=(20, 13, 2)):
    texts = [
        "I met James for coffee last Tuesday.",
        "I met James for coffee on Friday.",
        "I met James for coffee yesterday.",
    ]
    return [_episode(client, t, COFFEE, days_ago=d) for t, d in zip(texts, days, strict=True)]


@pytest.fixture
def episodes(personas):
    c = personas.client
    return {
        "coffee": _coffee(c),
        # close in meaning, other words: not the same habit
        "anna": _episode(c, "I met Anna for lunch on Monday.", COFFEE, days_ago=5),
        # only twice
        "leeds": [
            _episode(c, "Visited the Leeds office on Monday.", LEEDS, days_ago=9),
            _episode(c, "Visited the Leeds office last week.", LEEDS, days_ago=3),
        ],
        # three times, but as decisions
        "bonds": [
            _episode(
                c, f"Moved some savings to bonds {when}.", BONDS, days_ago=d, source="decision"
            )
            for when, d in (("last week", 30), ("yesterday", 12), ("on Monday", 4))
        ],
    }


def _made(source_ref="job:consolidate_episodes"):
    return Memory.objects.filter(source_ref=source_ref).order_by("content")


def _assert_consolidated(episodes):
    coffee, bonds = _made()
    assert (bonds.content, bonds.kind, bonds.category, bonds.status) == (
        "Recurring: Moved some savings to bonds.",
        "decision",
        "",
        "candidate",
    )
    assert (coffee.content, coffee.kind, coffee.category, coffee.status) == (
        "Recurring: I met James for coffee.",
        "semantic",
        "fact",
        "candidate",
    )
    assert (coffee.source_kind, coffee.dup_count, coffee.evidence_count) == ("job", 2, 3)
    assert coffee.title == "3 similar episodes"
    assert coffee.observed_at == NOW - 20 * DAY
    assert coffee.last_seen_at == NOW - 2 * DAY
    assert coffee.confidence == 0.8
    assert set(
        Relation.objects.filter(source=coffee, type="derives").values_list("target_id", flat=True)
    ) == {m.pk for m in episodes["coffee"]}
    assert set(Evidence.objects.filter(memory=coffee).values_list("role", flat=True)) == {
        "consolidated"
    }
    # The episodes stay as they were; the TTL sweep expires them later.
    assert set(Memory.objects.filter(kind="episodic").values_list("status", flat=True)) == {
        "active"
    }


def test_repeated_episodes_become_one_candidate_each(personas, episodes):
    with time_machine.travel(NOW, tick=False):
        assert run(episodes_consolidate) == {"created": 2}
        _assert_consolidated(episodes)
        assert AuditEntry.objects.filter(action="memory.consolidate").count() == 2
        # Twice is once.
        assert run(episodes_consolidate) == {}
        assert _made().count() == 2


def test_a_new_episode_joins_the_fact_it_repeats(personas, episodes):
    with time_machine.travel(NOW, tick=False):
        run(episodes_consolidate)
        later = _episode(
            personas.client, "I met James for coffee this morning.", COFFEE, days_ago=0
        )
        assert run(episodes_consolidate) == {"extended": 1}
    coffee = _made().get(content__contains="coffee")
    assert (coffee.dup_count, coffee.evidence_count, coffee.last_seen_at) == (3, 4, NOW)
    assert Relation.objects.filter(source=coffee, target=later, type="derives").exists()
    assert _made().count() == 2


def test_one_day_of_repetition_is_not_a_habit(personas):
    _coffee(personas.client, days=(3, 3, 3))
    with time_machine.travel(NOW, tick=False):
        assert run(episodes_consolidate) == {}


def test_interrupted_then_rerun_ends_the_same(personas, settings, monkeypatch):
    for client in (personas.client, personas.parent, personas.heir_client):
        _coffee(client)
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 100}  # one client per transaction
    crash_on_call(monkeypatch, "memories.services.jobs.consolidation.clients_mark_profile_stale", 2)
    with time_machine.travel(NOW, tick=False):
        with pytest.raises(Crash):
            run(episodes_consolidate)
        assert _made().count() == 1
        assert run(episodes_consolidate) == {"created": 2}
    assert sorted(_made().values_list("client_id", flat=True)) == sorted(
        c.pk for c in (personas.client, personas.parent, personas.heir_client)
    )
    assert Relation.objects.filter(type="derives").count() == 9


@pytest.mark.django_db(transaction=True)
def test_two_workers_consolidate_once(personas, settings):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 100}
    clients = [personas.client, personas.parent, personas.heir_client, personas.advisor2_client]
    for client in clients:
        _coffee(client)
    with time_machine.travel(NOW, tick=False):
        first, second = in_parallel(
            lambda: run(episodes_consolidate), lambda: run(episodes_consolidate)
        )
    assert first.get("created", 0) + second.get("created", 0) == len(clients)
    assert _made().count() == len(clients)
    assert Relation.objects.filter(type="derives").count() == 3 * len(clients)


# --- principles ----------------------------------------------------------------------------


@pytest.fixture
def decisions(personas):
    c = personas.client
    calls = [factories.SessionFactory.create(client=c, external_ref=f"call-{n}") for n in range(3)]

    def decision(content, vector, *, session, days_ago):
        memory = _episode(
            c,
            content,
            vector,
            days_ago=days_ago,
            session=session,
            kind="decision",
            source="decision",
        )
        return memory

    return {
        "crypto": [
            decision(
                "Decided not to invest in crypto after the Milan meeting.",
                COFFEE,
                session=calls[0],
                days_ago=40,
            ),
            decision(
                "Will not put money into crypto funds.", COFFEE, session=calls[1], days_ago=20
            ),
            decision("Decided not to buy bitcoin this year.", COFFEE, session=calls[2], days_ago=5),
        ],
        # the opposite stance, as close in meaning: never part of the same principle
        "pro_crypto": decision(
            "Decided to buy some bitcoin.", COFFEE, session=calls[2], days_ago=4
        ),
        # three related, but all from one conversation
        "one_call": [
            decision(f"Keeps {n} months of expenses in cash.", LEEDS, session=calls[0], days_ago=40)
            for n in (3, 4, 6)
        ],
    }


def test_related_decisions_from_several_sessions_become_a_principle(personas, decisions):
    with time_machine.travel(NOW, tick=False):
        assert run(principles_extract) == {"created": 1}
        assert run(principles_extract) == {}
    [principle] = _made("job:extract_principles")
    assert (principle.kind, principle.status, principle.content) == (
        "principle",
        "candidate",
        "Guiding principle: Decided not to invest in crypto after the Milan meeting.",
    )
    assert principle.metadata == {
        "job": "extract_principles",
        "members": 3,
        "evidence": 3,
        "sessions": 3,
    }
    assert set(
        Relation.objects.filter(source=principle, type="derives").values_list(
            "target_id", flat=True
        )
    ) == {m.pk for m in decisions["crypto"]}
    assert principle.evidence_count == 3
