"""Corrections (a new memory that supersedes the old one, the person its source) and a
supervisor's undo of a correction or a forget: the services, and what the agent reads
after them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.errors import DomainError
from memories.models import AuditEntry, Event, Evidence, Memory, Relation, Role, Tier
from memories.services.tenancy.encryption import tenant_create
from memories.services.write.core_budget import CoreTierFull
from memories.services.write.corrections import ChangedMeanwhile, change_undo, memory_correct
from memories.services.write.lifecycle import memory_forget
from tests.support import factories
from tests.support.encryption import dump_database, ingest_corpus, leaked
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def email(personas):
    said = factories.EventFactory.create(client=personas.client, content="Email me, please.")
    return factories.MemoryFactory.create(
        client=personas.client,
        content="Prefers to be contacted by email.",
        category="preference",
        attribute="contact_channel",
        attribute_value="email",
        importance=0.6,
        evidence=[said],
    )


def _correct(memory, actor, content="Prefers to be contacted by phone.", reason="She rang."):
    return memory_correct(memory=memory, content=content, reason=reason, actor=actor)


def test_a_correction_is_a_new_memory_that_supersedes_the_old_one(personas, email):
    new = _correct(email, personas.advisor, reason="She rang to say so.")

    email.refresh_from_db()
    assert email.content == "Prefers to be contacted by email."  # ADD-only: never edited
    assert (email.status, email.status_reason) == (
        "superseded",
        "corrected by advisor: She rang to say so.",
    )
    assert email.invalidated_at is not None
    assert (new.content, new.kind, new.category, new.tier, new.status) == (
        "Prefers to be contacted by phone.",
        "semantic",
        "preference",
        "recall",
        "active",
    )
    assert (new.attribute, new.attribute_value, new.negated) == ("contact_channel", "phone", False)
    assert (new.source_kind, new.source_ref, new.speaker, new.subject) == (
        "manual",
        f"user:{personas.advisor.pk}",
        "advisor",
        "",
    )
    assert (new.confidence, new.importance, new.evidence_count) == (0.95, 0.6, 1)
    relation = Relation.objects.get(source=new)
    assert (relation.type, relation.target, relation.created_by, relation.reason) == (
        "updates",
        email,
        personas.advisor,
        "correction: She rang to say so.",
    )
    (evidence,) = Evidence.objects.filter(memory=new).select_related("event")
    assert (evidence.action, evidence.related, evidence.role) == ("updated", email, "extracted")
    event = evidence.event
    assert (event.source, event.speaker, event.content, event.metadata) == (
        "observation",
        "advisor",
        "Prefers to be contacted by phone.",
        {"corrects": str(email.pk)},
    )
    entry = AuditEntry.objects.get(action="memory.correct")
    assert (entry.actor, entry.object_id, entry.reason) == (
        personas.advisor,
        str(new.pk),
        "She rang to say so.",
    )
    assert entry.data == {
        "corrects": str(email.pk),
        "event": str(event.pk),
        "before": {"status": "active", "status_reason": "", "invalidated_at": None},
    }
    personas.client.refresh_from_db()
    assert personas.client.profile_stale_since is not None  # the profile is rebuilt


def test_a_correction_takes_the_core_place_of_a_pinned_core_memory(personas):
    old = factories.MemoryFactory.create(client=personas.client, content="x" * 1500, tier="core")
    Memory.objects.filter(pk=old.pk).update(tier_pinned=True)
    old.refresh_from_db()
    # 1 500 bytes in use of 2 048: a 1 800-byte correction fits only once the old one leaves.
    new = _correct(old, personas.supervisor, content="y" * 1800)
    assert (new.tier, new.tier_pinned) == ("core", True)


def test_a_correction_too_large_for_the_core_tier_changes_nothing(personas):
    old = factories.MemoryFactory.create(client=personas.client, content="short", tier="core")
    factories.MemoryFactory.create(client=personas.client, content="z" * 2030, tier="core")
    with unchanged(), pytest.raises(CoreTierFull):
        _correct(old, personas.advisor, content="a much longer statement than the old one")


@pytest.mark.parametrize(
    ("content", "reason", "message"),
    [
        ("   ", "She rang.", "Write the statement as it should be."),
        ("Prefers phone calls.", "", "Say why: the reason goes in the audit trail."),
        ("Prefers to be contacted by EMAIL!", "Typo.", "The correction says what the memory"),
        ("x" * 2001, "Long.", "content: At most 2000 characters (this is 2001)."),
    ],
)
def test_a_correction_that_says_nothing_new_is_refused(personas, email, content, reason, message):
    with unchanged(), pytest.raises(DomainError) as refused:
        _correct(email, personas.advisor, content=content, reason=reason)
    assert refused.value.message.startswith(message)


@pytest.mark.parametrize("status", ["superseded", "deleted", "merged"])
def test_only_a_live_memory_can_be_corrected(personas, email, status):
    Memory.objects.filter(pk=email.pk).update(status=status)
    with unchanged(), pytest.raises(ChangedMeanwhile) as refused:
        _correct(email, personas.advisor)
    assert refused.value.status_code == 409
    assert refused.value.message.startswith(f"This memory is {status}: only what memory holds now")


def test_an_expired_memory_cannot_be_corrected(personas, email):
    running = factories.MemoryFactory.create(
        client=personas.client, content="Deploy job 17 is running.", kind="operational"
    )
    Memory.objects.filter(pk=running.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    with unchanged(), pytest.raises(ChangedMeanwhile) as refused:
        _correct(running, personas.advisor)
    assert refused.value.message.startswith("This memory is active and expired")


def test_a_plan_whose_day_has_gone_by_can_still_be_corrected(personas, email):
    Memory.objects.filter(pk=email.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    assert _correct(email, personas.advisor).content == "Prefers to be contacted by phone."


def test_undoing_a_correction_brings_the_old_memory_back(personas, email):
    new = _correct(email, personas.advisor)
    entry = AuditEntry.objects.get(action="memory.correct")

    restored = change_undo(memory=new, entry_id=entry.pk, actor=personas.supervisor, reason="No.")

    assert restored == email
    assert (restored.status, restored.status_reason, restored.invalidated_at) == (
        "active",
        "",
        None,
    )
    new.refresh_from_db()
    assert (new.status, new.status_reason) == ("deleted", "correction undone by supervisor")
    undo = AuditEntry.objects.get(action="memory.undo")
    assert (undo.actor, undo.object_id, undo.reason) == (personas.supervisor, str(email.pk), "No.")
    assert undo.data == {
        "undoes": str(entry.pk),
        "undone": "memory.correct",
        "restored": str(email.pk),
        "deleted": str(new.pk),
    }
    with unchanged(), pytest.raises(ChangedMeanwhile) as again:
        change_undo(memory=email, entry_id=entry.pk, actor=personas.supervisor)
    assert again.value.message == "This change was already undone."


def test_undoing_a_forget_restores_the_state_before_it(personas, email):
    Memory.objects.filter(pk=email.pk).update(status="promoted", status_reason="promoted by x")
    email.refresh_from_db()
    memory_forget(memory=email, actor=personas.advisor, actor_label="advisor", reason="Wrong.")
    entry = AuditEntry.objects.get(action="memory.forget")
    assert entry.data == {
        "before": {"status": "promoted", "status_reason": "promoted by x", "invalidated_at": None}
    }

    restored = change_undo(memory=email, entry_id=entry.pk, actor=personas.supervisor)

    assert (restored.status, restored.status_reason, restored.invalidated_at) == (
        "promoted",
        "promoted by x",
        None,
    )
    assert AuditEntry.objects.get(action="memory.undo").data["undone"] == "memory.forget"


def test_an_undo_after_the_memories_changed_changes_nothing(personas, email):
    new = _correct(email, personas.advisor)
    entry = AuditEntry.objects.get(action="memory.correct")
    memory_forget(memory=new, actor=personas.advisor, actor_label="advisor", reason="Oops.")
    with unchanged(), pytest.raises(ChangedMeanwhile) as refused:
        change_undo(memory=email, entry_id=entry.pk, actor=personas.supervisor)
    assert refused.value.message == (
        "The memories changed since the correction (the correction is deleted, the corrected "
        "memory superseded): nothing was undone."
    )


def test_an_undo_names_a_change_of_this_memory(personas, email):
    other = factories.MemoryFactory.create(client=personas.client, content="Lives in Leeds.")
    memory_forget(memory=other, actor=personas.advisor, actor_label="advisor", reason="Gone.")
    entry = AuditEntry.objects.get(action="memory.forget")
    set_tier = factories.AuditEntryFactory.create(
        tenant=personas.tenant, action="memory.set_tier", object_id=str(email.pk)
    )
    for wrong in (entry.pk, set_tier.pk, 10**9):
        with unchanged(), pytest.raises(DomainError) as refused:
            change_undo(memory=email, entry_id=wrong, actor=personas.supervisor)
        assert refused.value.fields == {"entry": ["Not an undoable change of this memory."]}


def test_undoing_a_forget_of_a_core_memory_needs_room_in_the_core_tier(personas):
    core = factories.MemoryFactory.create(client=personas.client, content="c" * 1000, tier="core")
    memory_forget(memory=core, actor=personas.advisor, actor_label="advisor", reason="Old.")
    factories.MemoryFactory.create(client=personas.client, content="d" * 1500, tier=Tier.CORE)
    entry = AuditEntry.objects.get(action="memory.forget")
    with unchanged(), pytest.raises(CoreTierFull):
        change_undo(memory=core, entry_id=entry.pk, actor=personas.supervisor)


def test_the_agent_reads_the_correction_and_not_the_old_statement(
    client, api_client, agent_key, personas, post_event, django_capture_on_commit_callbacks
):
    """Through the page, then the API: search and the context's text carry the correction,
    with the advisor as who said it, and no longer the corrected statement."""
    said = post_event("I prefer to be contacted by email.", days_ago=3)["memories"][0]
    client.force_login(personas.advisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/memories/{said['id']}/correct/",
            {"content": "Prefers to be contacted by phone.", "reason": "She rang."},
        )
    assert response.status_code == 302
    context = api_client.post(
        "/api/v1/context/",
        {"client": "emma", "message": "How should we contact her?"},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    ).json()
    assert "advisor: Prefers to be contacted by phone." in context["text"]
    assert "email" not in context["text"]
    assert [m["content"] for m in context["memories"]] == ["Prefers to be contacted by phone."]
    assert Event.objects.filter(client=personas.client, speaker="advisor").count() == 1


def test_a_correction_in_an_encrypted_tenant_stores_none_of_its_words():
    vault = tenant_create(slug="vault", name="Vault", encrypted=True)
    user = factories.UserFactory.create(username="keeper")
    factories.MembershipFactory.create(tenant=vault, user=user, role=Role.SUPERVISOR)
    (result,) = ingest_corpus(user=user, tenant=vault, corpus=["I prefer to be called by phone."])
    called = result.outcomes[0].memory
    baseline = dump_database()
    said = "Prefers letters posted to the Shetland croft."
    new = memory_correct(memory=called, content=said, reason="Checked.", actor=user)
    assert leaked(dump_database(), [said], baseline=baseline) == {"sentences": [], "words": []}
    assert Memory.objects.get(pk=new.pk).content == said
    assert Event.objects.get(speaker="keeper").content == said
