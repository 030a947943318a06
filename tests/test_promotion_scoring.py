"""Promotion scoring: the right memories reach the review queue, with their reasons, once."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from curation.models import ReviewItem
from curation.services.promotion import promotion_decide
from curation.services.promotion_scoring import promotions_score
from memories.models import AuditEntry, Memory, Tenant
from tests.support import factories
from tests.support.jobs import Crash, crash_on_call, in_parallel, run

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _memory(client, content, *, restated=0, reads=0, sessions=1, days=40, **fields):
    with time_machine.travel(NOW - days * DAY, tick=False):
        memory = factories.MemoryFactory.create(
            client=client,
            content=content,
            observed_at=NOW - days * DAY,
            usage_count=reads,
            dup_count=restated,
            **fields,
        )
        for _ in range(sessions):
            session = factories.SessionFactory.create(client=client)
            factories.EvidenceFactory.create(memory=memory, event__session=session)
    Memory.objects.filter(pk=memory.pk).update(evidence_count=sessions)
    memory.refresh_from_db()
    return memory


@pytest.fixture
def world(personas):
    c = personas.client
    strong = dict(restated=4, reads=10, sessions=3, confidence=0.9, importance=0.6)
    w = {
        # 0.30 + 0.20 + 0.20·0.9 + 0.15 + 0.10 + 0.05·0.6 = 0.96
        "strong": _memory(c, "Prefers to be contacted by email.", **strong),
        # 0.30·0.5 + 0.20·0.6 + 0.20·0.8 + 0.15·⅔ + 0.10 + 0.05·0.5 = 0.655
        "medium": _memory(
            c,
            "Lives in Bristol.",
            restated=2,
            reads=6,
            sessions=2,
            confidence=0.8,
            importance=0.5,
            days=30,
        ),
        "weak": _memory(c, "Likes opera.", confidence=0.7, days=2),
        "no_evidence": _memory(c, "Has a boat.", sessions=0, restated=4, reads=10),
        "episodic": _memory(c, "Met James on Friday.", kind="episodic", **strong),
        "against_canon": _memory(
            c,
            "Prefers phone calls.",
            attribute="contact_channel",
            attribute_value="phone",
            **strong,
        ),
        "canon": _memory(
            c,
            "Prefers to be reached by post.",
            attribute="contact_channel",
            attribute_value="post",
            status="promoted",
        ),
        "in_conflict": _memory(c, "Works at Lloyds.", **strong),
        "rival": _memory(c, "Works at Barclays.", days=1),
        "principle": _memory(
            c,
            "Guiding principle: avoids crypto.",
            kind="principle",
            category="",
            status="candidate",
            source_kind="job",
            title="From 3 related memories",
            sessions=3,
            days=1,
        ),
    }
    factories.RelationFactory.create(
        source=w["rival"], target=w["in_conflict"], type="conflicts_with"
    )
    return w


def _items():
    return {
        item.memory_id: item
        for item in ReviewItem.objects.filter(type="promotion").order_by("created_at")
    }


def _assert_scored(w):
    items = _items()
    assert set(items) == {w["strong"].pk, w["medium"].pk, w["principle"].pk}
    strong = items[w["strong"].pk]
    assert (strong.state, strong.score, strong.recommended) == ("open", 0.96, True)
    assert strong.summary == (
        "Score 0.96: restated 4×, read 10×, confidence 0.90, evidence from 3 session(s), "
        "known for 40 day(s), importance 0.60. Recommended."
    )
    assert strong.score_components == {
        "repetition": 1.0,
        "usage": 1.0,
        "confidence": 0.9,
        "evidence": 1.0,
        "stability": 1.0,
        "impact": 0.6,
        "evidence_count": 3,
        "restated": 4,
        "reads": 10,
        "sessions": 3,
    }
    assert (items[w["medium"].pk].score, items[w["medium"].pk].recommended) == (0.655, False)
    assert items[w["principle"].pk].summary.startswith("From 3 related memories. Score ")
    statuses = dict(Memory.objects.values_list("pk", "status"))
    assert statuses[w["strong"].pk] == statuses[w["medium"].pk] == "candidate"
    assert statuses[w["weak"].pk] == statuses[w["in_conflict"].pk] == "active"
    scores = dict(Memory.objects.values_list("pk", "promotion_score"))
    assert scores[w["weak"].pk] == round(0.2 * 0.7 + 0.15 / 3 + 0.1 * 2 / 30 + 0.05 * 0.5, 4)
    assert scores[w["episodic"].pk] is None and scores[w["canon"].pk] is None


def test_the_queue_gets_exactly_the_deserving_memories(personas, world):
    with time_machine.travel(NOW, tick=False):
        counts = run(promotions_score)
        assert counts == {
            "scored": 8,
            "score_changed": 8,
            "proposed": 3,
            "recommended": 1,
            "not_proposed": 2,
        }
        _assert_scored(world)
        assert AuditEntry.objects.filter(action="review.open").count() == 3
        # Twice is once.
        assert run(promotions_score) == {"scored": 8, "not_proposed": 5}
    assert ReviewItem.objects.count() == 3


def test_a_rejected_memory_waits_unless_its_evidence_grows(personas, world):
    with time_machine.travel(NOW, tick=False):
        run(promotions_score)
        for name in ("strong", "medium"):
            promotion_decide(
                item=_items()[world[name].pk],
                approve=False,
                actor=personas.supervisor,
                reason="not yet",
            )
    with time_machine.travel(NOW + 10 * DAY, tick=False):
        run(promotions_score)
        assert ReviewItem.objects.filter(state="open").count() == 1  # the principle
        factories.EvidenceFactory.create(memory=world["medium"])
        Memory.objects.filter(pk=world["medium"].pk).update(evidence_count=3)
        run(promotions_score)
        assert set(ReviewItem.objects.filter(state="open").values_list("memory", flat=True)) == {
            world["principle"].pk,
            world["medium"].pk,
        }
    with time_machine.travel(NOW + 31 * DAY, tick=False):
        run(promotions_score)
    assert ReviewItem.objects.filter(state="open", memory=world["strong"]).exists()


def test_the_tenant_policy_approves_above_its_threshold(personas, world):
    Tenant.objects.filter(pk=personas.tenant.pk).update(auto_approve_promotions_above=0.9)
    with time_machine.travel(NOW, tick=False):
        assert run(promotions_score)["auto_approved"] == 1
    items = _items()
    approved = items[world["strong"].pk]
    assert (approved.state, approved.decision, approved.decided_by) == ("decided", "approve", None)
    assert approved.reason == "score 0.96 ≥ the tenant's auto-approve threshold 0.90"
    assert Memory.objects.get(pk=world["strong"].pk).status == "promoted"
    assert items[world["medium"].pk].state == "open"


def test_items_of_memories_that_changed_become_obsolete(personas, world):
    with time_machine.travel(NOW, tick=False):
        run(promotions_score)
        Memory.objects.filter(pk=world["medium"].pk).update(status="merged")
        assert run(promotions_score)["obsoleted"] == 1
    assert _items()[world["medium"].pk].state == "obsolete"


def test_interrupted_then_rerun_ends_the_same(personas, world, settings, monkeypatch):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 2}
    crash_on_call(monkeypatch, "curation.services.promotion_scoring._sources", 3)
    with time_machine.travel(NOW, tick=False):
        with pytest.raises(Crash):
            run(promotions_score)
        assert Memory.objects.filter(promotion_score__isnull=False).count() == 4
        run(promotions_score)
        _assert_scored(world)


@pytest.mark.django_db(transaction=True)
def test_two_workers_propose_each_memory_once(personas, settings):
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 1}
    clients = [personas.client, personas.parent, personas.heir_client, personas.advisor2_client]
    strong = [
        _memory(client, f"Prefers {channel}.", restated=4, reads=10, sessions=3)
        for client in clients
        for channel in ("email", "letters")
    ]
    with time_machine.travel(NOW, tick=False):
        first, second = in_parallel(lambda: run(promotions_score), lambda: run(promotions_score))
    assert first.get("proposed", 0) + second.get("proposed", 0) == len(strong)
    assert ReviewItem.objects.count() == len(strong)
    assert AuditEntry.objects.filter(action="review.open").count() == len(strong)
