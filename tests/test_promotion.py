"""Deciding a promotion: approve makes the memory canonical, reject returns the candidate
to active and leaves the rest alone, a closed item is refused."""

import threading
from datetime import UTC, datetime

import pytest
import time_machine
from django.db import connection

from curation.models import ReviewItem
from curation.services.promotion import ContradictsCanonical, ReviewClosed, promotion_decide
from memories.errors import DomainError
from memories.models import AuditEntry, Memory
from memories.services.embedding.reembed import memories_reembed
from memories.services.retrieval import memories_search
from tests.support import factories

pytestmark = pytest.mark.django_db

DECIDED_AT = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def _candidate(client, content="Prefers to be contacted by email.", **fields):
    memory = factories.MemoryFactory.create(
        client=client, content=content, status="candidate", **fields
    )
    item = factories.ReviewItemFactory.create(
        memory=memory,
        other_memory=None,
        type=ReviewItem.Type.PROMOTION,
        score=0.83,
        recommended=True,
    )
    return memory, item


def _state(memory):
    memory.refresh_from_db()
    return (memory.status, memory.tier, memory.tier_pinned, memory.status_reason)


def test_approve_promotes_the_memory_and_records_the_decision(personas):
    memory, item = _candidate(personas.client, tier="recall")
    with time_machine.travel(DECIDED_AT, tick=False):
        decided = promotion_decide(
            item=item, approve=True, actor=personas.supervisor, reason="Confirmed twice."
        )
    assert decided is item
    item.refresh_from_db()
    assert (item.state, item.decision, item.decided_by, item.decided_at, item.reason) == (
        "decided",
        "approve",
        personas.supervisor,
        DECIDED_AT,
        "Confirmed twice.",
    )
    # Status moves, tier does not: the two axes stay apart.
    assert _state(memory) == ("promoted", "recall", False, "promoted by supervisor")
    entry = AuditEntry.objects.get(action="promotion.approve")
    assert (entry.actor, entry.object_id, entry.reason, entry.data) == (
        personas.supervisor,
        str(memory.pk),
        "Confirmed twice.",
        {"review_item": str(item.pk), "score": 0.83, "from": "candidate"},
    )


def test_an_approved_memory_ranks_as_canonical_at_once(personas):
    memory, item = _candidate(personas.client)
    memories_reembed()
    [before] = memories_search(client=personas.client, query="contacted by email", k=1)
    assert before.scores["canonicity"] == 0.5
    promotion_decide(item=item, approve=True, actor=personas.supervisor)
    [after] = memories_search(client=personas.client, query="contacted by email", k=1)
    assert (after.memory.pk, after.scores["canonicity"]) == (memory.pk, 1.0)
    assert after.score == pytest.approx(before.score + 0.05 * 0.5, abs=1e-3)


def test_reject_records_why_and_returns_the_candidate_to_active(personas):
    memory, item = _candidate(personas.client, tier="core")
    Memory.objects.filter(pk=memory.pk).update(tier_pinned=True)
    with time_machine.travel(DECIDED_AT, tick=False):
        promotion_decide(
            item=item, approve=False, actor=personas.supervisor, reason="Said once, in passing."
        )
    item.refresh_from_db()
    assert (item.state, item.decision, item.decided_at, item.reason) == (
        "decided",
        "reject",
        DECIDED_AT,
        "Said once, in passing.",
    )
    # No longer waiting for a decision: not a candidate any more; its tier stays.
    assert _state(memory) == ("active", "core", True, "promotion rejected by supervisor")
    assert AuditEntry.objects.filter(action="promotion.reject", object_id=str(memory.pk)).exists()


def test_the_tenant_policy_decides_without_a_person(personas):
    memory, item = _candidate(personas.client)
    promotion_decide(item=item, approve=True, actor=None, reason="score 0.83 ≥ 0.80")
    item.refresh_from_db()
    assert (item.decision, item.decided_by) == ("approve", None)
    assert _state(memory)[0] == "promoted"
    assert AuditEntry.objects.get(action="promotion.approve").actor_label == (
        "tenant auto-approve policy"
    )


@pytest.mark.parametrize("approve", [True, False])
def test_a_decided_item_is_refused_and_nothing_changes(personas, approve):
    memory, item = _candidate(personas.client)
    promotion_decide(item=item, approve=False, actor=personas.supervisor, reason="no")
    audits = AuditEntry.objects.count()
    with pytest.raises(ReviewClosed, match=r"already decided \(reject\)"):
        promotion_decide(item=item, approve=approve, actor=personas.admin, reason="again")
    item.refresh_from_db()
    assert (item.decision, item.decided_by, item.reason) == ("reject", personas.supervisor, "no")
    assert _state(memory)[0] == "active"
    assert AuditEntry.objects.count() == audits


def test_an_obsolete_item_is_refused(personas):
    memory, item = _candidate(personas.client)
    ReviewItem.objects.filter(pk=item.pk).update(state="obsolete")
    with pytest.raises(ReviewClosed, match="already obsolete"):
        promotion_decide(item=item, approve=True, actor=personas.supervisor)
    assert _state(memory)[0] == "candidate"


def test_a_memory_merged_meanwhile_makes_the_item_obsolete(personas):
    memory, item = _candidate(personas.client)
    Memory.objects.filter(pk=memory.pk).update(status="merged")
    with pytest.raises(ReviewClosed, match="now merged"):
        promotion_decide(item=item, approve=True, actor=personas.supervisor)
    item.refresh_from_db()
    assert (item.state, item.decision) == ("obsolete", "")
    assert _state(memory)[0] == "merged"
    assert AuditEntry.objects.filter(action="review.obsolete").count() == 1


def test_a_conflict_item_is_not_a_promotion(personas):
    item = factories.ReviewItemFactory.create(
        memory__client=personas.client, type=ReviewItem.Type.CONFLICT
    )
    with pytest.raises(DomainError, match="not a promotion"):
        promotion_decide(item=item, approve=True, actor=personas.supervisor)


def test_approving_against_a_contradicting_canonical_memory_is_refused(personas):
    factories.MemoryFactory.create(
        client=personas.client,
        content="Prefers to be contacted by phone.",
        attribute="contact_channel",
        attribute_value="phone",
        status="promoted",
    )
    memory, item = _candidate(personas.client, attribute="contact_channel", attribute_value="email")
    with pytest.raises(ContradictsCanonical, match="about contact_channel"):
        promotion_decide(item=item, approve=True, actor=personas.supervisor)
    item.refresh_from_db()
    assert item.state == "open"
    assert _state(memory)[0] == "candidate"
    # Rejecting it is still possible.
    promotion_decide(item=item, approve=False, actor=personas.supervisor, reason="stale")
    assert ReviewItem.objects.get(pk=item.pk).decision == "reject"


@pytest.mark.django_db(transaction=True)
def test_two_supervisors_at_once_decide_once(personas):
    memory, item = _candidate(personas.client)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def decide(actor, approve):
        try:
            barrier.wait()
            promotion_decide(item=ReviewItem.objects.get(pk=item.pk), approve=approve, actor=actor)
            outcomes.append("decided")
        except ReviewClosed:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(personas.supervisor, True)),
        threading.Thread(target=decide, args=(personas.admin, False)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["decided", "refused"]
    item.refresh_from_db()
    assert item.state == "decided"
    assert _state(memory)[0] == ("promoted" if item.decision == "approve" else "active")
    assert AuditEntry.objects.filter(action__startswith="promotion.").count() == 1
