"""conflict_decide: keep old, accept new, keep both, merge; obsolete items; the audit trail;
and retrieval that reflects the decision at once."""

import pytest

from curation.models import ReviewItem
from curation.services.review import ReviewClosed, conflict_decide
from memories.errors import DomainError
from memories.models import AuditEntry, Evidence, Memory, Relation
from memories.services.retrieval import memories_search
from tests.support import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def conflict(personas, post_event):
    """A real conflict from the write path: an older statement contradicts a newer one."""
    post_event("I prefer to be contacted by email.", external_id="old")
    post_event("I prefer to be contacted by phone.", external_id="new", days_ago=10)
    return ReviewItem.objects.get(type="conflict", state="open")


def _texts(client, query="contacted"):
    return [h.memory.content for h in memories_search(client=client, query=query, k=5)]


def test_accept_new_supersedes_the_old_memory(personas, conflict):
    old, new = conflict.other_memory, conflict.memory
    assert sorted(_texts(personas.client)) == [
        "I prefer to be contacted by email.",
        "I prefer to be contacted by phone.",
    ]

    item = conflict_decide(
        item=conflict, decision="accept_new", actor=personas.supervisor, reason="Called her."
    )

    assert (item.state, item.decision, item.decided_by, item.reason) == (
        "decided",
        "accept_new",
        personas.supervisor,
        "Called her.",
    )
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.status, new.status) == ("superseded", "active")
    assert old.content == "I prefer to be contacted by email."  # never rewritten
    assert old.invalidated_at is not None
    assert Relation.objects.filter(source=new, target=old, type="updates").count() == 1
    assert _texts(personas.client) == ["I prefer to be contacted by phone."]
    entry = AuditEntry.objects.get(action="review.decide")
    assert (entry.actor, entry.object_id, entry.reason) == (
        personas.supervisor,
        str(item.pk),
        "Called her.",
    )
    assert entry.data == {
        "type": "conflict",
        "decision": "accept_new",
        "memory": str(new.pk),
        "other": str(old.pk),
        "invalidated": str(old.pk),
    }


def test_keep_old_rejects_the_new_memory(personas, conflict):
    old, new = conflict.other_memory, conflict.memory
    conflict_decide(item=conflict, decision="keep_old", actor=personas.supervisor)
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.status, new.status) == ("active", "superseded")
    assert new.status_reason == f"rejected in review: {old.pk} kept"
    assert _texts(personas.client) == ["I prefer to be contacted by email."]
    assert Relation.objects.filter(type="updates").count() == 0


def test_keep_both_changes_no_memory(personas, conflict):
    before = list(Memory.objects.order_by("pk").values_list("pk", "status", "tier"))
    item = conflict_decide(item=conflict, decision="keep_both", actor=personas.supervisor)
    assert (item.state, item.decision) == ("decided", "keep_both")
    assert list(Memory.objects.order_by("pk").values_list("pk", "status", "tier")) == before
    assert len(_texts(personas.client)) == 2


def test_merge_links_the_new_memory_into_the_old_one(personas, conflict):
    old, new = conflict.other_memory, conflict.memory
    conflict_decide(item=conflict, decision="merge", actor=personas.supervisor, reason="Same.")
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.status, new.status, new.canonical_id) == ("active", "merged", old.pk)
    relation = Relation.objects.get(type="merged_into")
    assert (relation.source, relation.target, relation.created_by) == (
        new,
        old,
        personas.supervisor,
    )
    evidence = Evidence.objects.filter(memory=old).values_list("event__external_id", "role")
    assert sorted(evidence) == [("new", "consolidated"), ("old", "extracted")]
    assert Evidence.objects.filter(memory=new).count() == 1  # its own history stays
    assert (old.evidence_count, old.dup_count) == (2, 1)
    assert _texts(personas.client) == ["I prefer to be contacted by email."]


def test_accept_new_takes_the_core_place_of_the_old_memory(personas):
    old = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email.", tier="core"
    )
    new = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    item = factories.ReviewItemFactory.create(memory=new, other_memory=old)
    conflict_decide(item=item, decision="accept_new", actor=personas.supervisor)
    new.refresh_from_db()
    assert new.tier == "core"
    assert AuditEntry.objects.filter(action="memory.set_tier", object_id=str(new.pk)).count() == 1


def test_a_decided_item_cannot_be_decided_again(personas, conflict):
    conflict_decide(item=conflict, decision="keep_both", actor=personas.supervisor)
    with pytest.raises(ReviewClosed, match=r"already closed \(Keep both\)"):
        conflict_decide(item=conflict, decision="accept_new", actor=personas.admin)
    conflict.refresh_from_db()
    assert (conflict.decision, conflict.decided_by) == ("keep_both", personas.supervisor)


def test_an_item_whose_memory_changed_meanwhile_becomes_obsolete(personas, conflict):
    Memory.objects.filter(pk=conflict.other_memory_id).update(status="deleted")
    item = conflict_decide(item=conflict, decision="accept_new", actor=personas.supervisor)
    assert (item.state, item.decision) == ("obsolete", "")
    assert item.reason == f"memory {conflict.other_memory_id} is now deleted"
    assert Memory.objects.get(pk=conflict.memory_id).status == "active"
    assert AuditEntry.objects.filter(action="review.obsolete").count() == 1
    assert AuditEntry.objects.filter(action="review.decide").count() == 0


def test_invalidating_a_memory_makes_its_other_open_items_obsolete(personas):
    old = factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    first = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    second = factories.MemoryFactory.create(client=personas.client, content="Prefers letters.")
    a = factories.ReviewItemFactory.create(memory=first, other_memory=old)
    b = factories.ReviewItemFactory.create(memory=second, other_memory=old)
    promotion = factories.ReviewItemFactory.create(memory=old, other_memory=None, type="promotion")
    conflict_decide(item=a, decision="accept_new", actor=personas.supervisor)
    b.refresh_from_db()
    promotion.refresh_from_db()
    assert (b.state, promotion.state) == ("obsolete", "obsolete")
    assert b.reason == f"memory {old.pk} is now superseded"


def test_unknown_decision_and_promotion_items_are_refused(personas, conflict):
    with pytest.raises(DomainError, match="Unknown decision 'approve'"):
        conflict_decide(item=conflict, decision="approve", actor=personas.supervisor)
    promotion = factories.ReviewItemFactory.create(
        client=personas.client, memory=conflict.memory, other_memory=None, type="promotion"
    )
    with pytest.raises(DomainError, match="is a promotion"):
        conflict_decide(item=promotion, decision="keep_old", actor=personas.supervisor)
    assert ReviewItem.objects.filter(state="open").count() == 2
