import io

import pytest
from django.core.management import call_command

from curation.models import ReviewItem
from memories.models import AuditEntry, Client, Event, Membership, Memory
from memories.services.tenancy.members import client_advisors

pytestmark = pytest.mark.django_db


def _seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", password="s3cret-demo", stdout=out)
    return out.getvalue()


def test_seed_demo_creates_one_user_per_persona_and_is_idempotent(client):
    first = _seed()
    counts = (Client.objects.count(), Event.objects.count(), Memory.objects.count())
    audited = AuditEntry.objects.count()
    second = _seed()
    assert (Client.objects.count(), Event.objects.count(), Memory.objects.count()) == counts
    # ``serve`` seeds at every start: an advisor already assigned is not assigned again.
    assert AuditEntry.objects.count() == audited
    assert "4 clients, 18 events and 14 memories added" in first
    assert "0 clients, 0 events and 0 memories added" in second
    roles = dict(
        Membership.objects.filter(tenant__slug="demo").values_list("user__username", "role")
    )
    assert roles == {
        "admin": "ADMIN",
        "supervisor": "SUPERVISOR",
        "advisor": "ADVISOR",
        "advisor2": "ADVISOR",
        "client": "CLIENT",
        "heir": "NEXTGEN_HEIR",
    }
    assert client.login(username="advisor", password="s3cret-demo")


def test_demo_family_and_assignments():
    _seed()
    heir_client = Client.objects.get(user__username="heir")
    assert heir_client.family_parent is not None
    assert heir_client.family_parent.external_ref == "giulia-rossi"
    assert Client.objects.get(user__username="client").external_ref == "emma-clarke"
    carlos = Client.objects.get(external_ref="carlos-mendez")
    assert [u.username for u in client_advisors(carlos)] == ["advisor2"]
    assert Memory.objects.filter(client=carlos, tier="core").count() == 1
    assert all(m.evidence_count > 0 for m in Memory.objects.all())


def test_demo_review_queue_has_a_conflict_and_promotions_to_decide():
    _seed()
    _seed()  # twice: still one item per subject
    items = ReviewItem.objects.filter(tenant__slug="demo", state=ReviewItem.State.OPEN)
    conflicts = items.filter(type=ReviewItem.Type.CONFLICT)
    assert [(i.memory.content, i.other_memory.content) for i in conflicts] == [
        (
            "Mornings suit me better now: the children take the school bus.",
            "I'd rather meet in the afternoons; mornings are school runs.",
        )
    ]
    assert items.filter(type=ReviewItem.Type.PROMOTION).count() == 2
    promotions = {
        i.memory.content: i.recommended for i in items.filter(type=ReviewItem.Type.PROMOTION)
    }
    assert promotions == {
        "Vorrei reinvestire metà del ricavato.": True,
        "My husband James handles the joint account.": False,
    }


def test_demo_core_memories_stay_in_core_when_the_jobs_run():
    from memories.services.jobs.runner import job_run

    _seed()
    core = set(Memory.objects.filter(tenant__slug="demo", tier="core").values_list("pk", flat=True))
    job_run("tiers")
    assert len(core) == 5
    assert (
        set(Memory.objects.filter(tenant__slug="demo", tier="core").values_list("pk", flat=True))
        == core
    )


def test_each_demo_memory_keeps_the_client_s_words_and_the_day_they_were_said():
    """As ingest would have kept it: the words of the turn it rests on (a greeting before
    them set aside), observed when that turn was said."""
    _seed()
    for memory in Memory.objects.filter(tenant__slug="demo"):
        [event] = Event.objects.filter(evidence_for__memory=memory)
        assert memory.content[1:] in event.content, (memory.content, event.content)
        assert event.speaker == "client"
        assert memory.observed_at == event.observed_at
    assert all(m.evidence_count == 1 for m in Memory.objects.all())
    # The conflict was said after what it contradicts: the queue calls it the more recent.
    morning = Memory.objects.get(content__startswith="Mornings suit me better now")
    afternoon = Memory.objects.get(content__startswith="I'd rather meet in the afternoons")
    assert morning.observed_at > afternoon.observed_at


@pytest.mark.parametrize("decision", ["accept_new", "keep_old", "keep_both", "merge"])
def test_seeding_again_never_reopens_what_a_supervisor_decided(decision):
    """``serve`` seeds the demo at every start: a conflict settled between two starts stays
    settled, whichever way, and so do the promotions."""
    from curation.services.review import review_decide

    _seed()
    supervisor = Membership.objects.get(tenant__slug="demo", role="SUPERVISOR").user
    opened = list(ReviewItem.objects.filter(tenant__slug="demo", state=ReviewItem.State.OPEN))
    for item in opened:
        choice = decision if item.type == ReviewItem.Type.CONFLICT else "reject"
        review_decide(item=item, decision=choice, actor=supervisor, reason="Settled.")
    statuses = dict(Memory.objects.values_list("pk", "status"))

    _seed()
    _seed()
    assert list(ReviewItem.objects.filter(tenant__slug="demo", state="open")) == []
    assert ReviewItem.objects.filter(tenant__slug="demo").count() == len(opened) == 3
    assert dict(Memory.objects.values_list("pk", "status")) == statuses
