"""Correct, forget and undo from a memory's page, and the audit trail pages, per persona.
(Every persona × these pages and actions is in tests/test_permission_matrix.py; here, what
each one shows and does.)"""

from __future__ import annotations

import re

import pytest

from memories.models import AuditEntry, Memory
from memories.services.tenancy.audit import audit
from memories.services.write.lifecycle import memory_forget
from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def email(personas):
    said = factories.EventFactory.create(client=personas.client, content="Email me, please.")
    return factories.MemoryFactory.create(
        client=personas.client, content="Prefers to be contacted by email.", evidence=[said]
    )


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_an_advisor_corrects_a_memory_and_lands_on_the_new_one(client, personas, email):
    client.force_login(personas.advisor)
    response = client.post(
        f"/memories/{email.pk}/correct/",
        {"content": "Prefers to be contacted by phone.", "reason": "She rang."},
        follow=True,
    )
    new = Memory.objects.get(content="Prefers to be contacted by phone.")
    assert response.redirect_chain == [(f"/memories/{new.pk}/", 302)]
    page = _text(response)
    assert "Corrected. This is the new memory; the old one is superseded" in page
    assert "Said by advisor" in page
    email.refresh_from_db()
    assert email.status == "superseded"


def test_the_correction_starts_from_todays_text(client, personas, email):
    client.force_login(personas.advisor)
    page = client.get(f"/memories/{email.pk}/").content.decode()
    assert (
        '<textarea id="id_correct_content" name="content" rows="3" maxlength="2000" required>'
        "Prefers to be contacted by email.</textarea>"
    ) in page


def test_a_refused_correction_keeps_what_was_typed_and_changes_nothing(client, personas, email):
    client.force_login(personas.advisor)
    with unchanged():
        response = client.post(
            f"/memories/{email.pk}/correct/", {"content": "Prefers letters.", "reason": " "}
        )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was changed: Why: This field is required." in page
    assert ">Prefers letters.</textarea>" in page
    assert '<details class="change" open>' in page


def test_correcting_a_memory_superseded_meanwhile_answers_409(client, personas, email):
    Memory.objects.filter(pk=email.pk).update(status="superseded")
    client.force_login(personas.supervisor)
    with unchanged():
        response = client.post(
            f"/memories/{email.pk}/correct/", {"content": "Prefers letters.", "reason": "Said so."}
        )
    assert response.status_code == 409
    assert "Nothing was changed: This memory is superseded: only what memory holds now" in (
        response.content.decode()
    )


def test_forgetting_from_the_page_asks_for_a_reason(client, personas, email):
    client.force_login(personas.advisor)
    with unchanged():
        refused = client.post(f"/memories/{email.pk}/forget/", {"reason": ""})
    assert refused.status_code == 400
    assert "Nothing was changed: Why forget it: This field is required." in refused.content.decode()

    response = client.post(f"/memories/{email.pk}/forget/", {"reason": "She asked us to."})
    assert response.status_code == 302
    email.refresh_from_db()
    assert (email.status, email.status_reason) == ("deleted", "She asked us to.")
    entry = AuditEntry.objects.get(action="memory.forget")
    assert (entry.actor_label, entry.reason) == ("advisor", "She asked us to.")


def test_a_supervisor_undoes_a_forget_from_the_memory_page(client, personas, email):
    memory_forget(memory=email, actor=personas.advisor, actor_label="advisor", reason="Wrong.")
    entry = AuditEntry.objects.get(action="memory.forget")

    client.force_login(personas.advisor)
    assert "Undo the forget" not in client.get(f"/memories/{email.pk}/").content.decode()
    client.force_login(personas.supervisor)
    page = client.get(f"/memories/{email.pk}/").content.decode()
    assert "Undo the forget" in page
    assert f'name="entry" value="{entry.pk}"' in page

    response = client.post(f"/memories/{email.pk}/undo/", {"entry": entry.pk}, follow=True)
    assert "Undone: this memory is active again." in _text(response)
    email.refresh_from_db()
    assert email.status == "active"
    assert "Undo the forget" not in response.content.decode()  # nothing left to undo

    with unchanged():
        again = client.post(f"/memories/{email.pk}/undo/", {"entry": entry.pk})
    assert again.status_code == 409
    assert "Nothing was undone: This change was already undone." in again.content.decode()


def test_the_page_offers_changes_to_those_who_may_make_them(client, personas, email):
    core = factories.MemoryFactory.create(client=personas.client, content="Likes tea.", tier="core")
    client.force_login(personas.advisor)
    page = client.get(f"/memories/{email.pk}/").content.decode()
    assert "Correct this memory" in page and "Forget this memory" in page
    assert f'href="/memories/{email.pk}/audit/"' in page
    client.force_login(personas.client_user)  # her own core memory: read only
    page = client.get(f"/memories/{core.pk}/").content.decode()
    assert "Correct this memory" not in page and "Forget this memory" not in page
    assert "/audit/" not in page
    Memory.objects.filter(pk=email.pk).update(status="superseded")
    client.force_login(personas.supervisor)  # history is not corrected
    assert "Correct this memory" not in client.get(f"/memories/{email.pk}/").content.decode()


def test_the_memory_audit_trail_says_who_changed_what_and_why_with_links(client, personas, email):
    client.force_login(personas.advisor)
    client.post(
        f"/memories/{email.pk}/correct/",
        {"content": "Prefers to be contacted by phone.", "reason": "She rang."},
    )
    new = Memory.objects.get(content="Prefers to be contacted by phone.")
    unrelated = factories.MemoryFactory.create(client=personas.client, content="Lives in Leeds.")
    audit(
        tenant_id=personas.tenant.pk,
        action="memory.set_tier",
        object_type="memory",
        object_id=unrelated.pk,
        data={"from": "recall", "to": "core"},
    )

    client.force_login(personas.supervisor)
    response = client.get(f"/memories/{email.pk}/audit/")
    rows = response.context["rows"]
    assert [(r.entry.action, r.subject) for r in rows] == [("memory.correct", new)]
    assert rows[0].links == [("corrects", email)]
    page = _text(response)
    assert "supervisor" in page and "advisor corrected a memory" in page
    assert "Why: “She rang.”" in page
    assert f'href="/memories/{email.pk}/"' in response.content.decode()
    assert "Undo this correction" in page


def test_the_client_audit_trail_holds_the_client_its_memories_and_reviews(client, personas, email):
    other = factories.MemoryFactory.create(client=personas.client, content="Prefers letters.")
    review = factories.ReviewItemFactory.create(memory=other, other_memory=email)
    audit(
        tenant_id=personas.tenant.pk,
        action="review.open",
        object_type="review_item",
        object_id=review.pk,
        data={"memory": str(other.pk), "other": str(email.pk)},
    )
    memory_forget(memory=email, actor=personas.advisor, actor_label="advisor", reason="Wrong.")
    carlos = factories.MemoryFactory.create(client=personas.advisor2_client, content="Sails.")
    memory_forget(memory=carlos, actor=personas.advisor2, actor_label="advisor2", reason="No.")

    client.force_login(personas.advisor)
    response = client.get(f"/clients/{personas.client.pk}/audit/")
    assert [(r.entry.action, r.subject) for r in response.context["rows"]] == [
        ("memory.forget", email),
        ("review.open", other),
        ("client.assign_advisor", None),
    ]
    page = _text(response)
    assert "Undo this forget" not in page  # advisors do not undo
    assert "Sails." not in page
    client.force_login(personas.supervisor)
    assert "Undo this forget" in _text(client.get(f"/clients/{personas.client.pk}/audit/"))


def test_a_memory_page_says_who_corrected_it_and_who_undid_the_correction(client, personas, email):
    client.force_login(personas.advisor)
    client.post(
        f"/memories/{email.pk}/forget/", {"reason": "Wrong client."}
    )  # forgotten first, then brought back: the forget no longer explains anything
    entry = AuditEntry.objects.get(action="memory.forget")
    client.force_login(personas.supervisor)
    client.post(f"/memories/{email.pk}/undo/", {"entry": entry.pk})
    client.force_login(personas.advisor)
    client.post(
        f"/memories/{email.pk}/correct/",
        {"content": "Prefers to be contacted by phone.", "reason": "She rang."},
    )
    new = Memory.objects.get(content="Prefers to be contacted by phone.")
    page = _text(client.get(f"/memories/{email.pk}/"))
    assert (
        "Why superseded: corrected: “Prefers to be contacted by phone.” replaced it, by advisor on"
        in page
    )
    assert page.split("replaced it, by advisor on ")[1].split(": “")[1].startswith("She rang.”")

    correction = AuditEntry.objects.get(action="memory.correct")
    client.force_login(personas.supervisor)
    client.post(f"/memories/{new.pk}/undo/", {"entry": correction.pk, "reason": "Not so."})
    page = _text(client.get(f"/memories/{new.pk}/"))
    assert (
        "Why deleted: the correction of “Prefers to be contacted by email.” was undone, by "
        "supervisor on"
    ) in page
    assert "“Not so.”" in page


def test_the_audit_trail_names_memories_and_reviews_not_ids(client, personas, email):
    """A decision that moves the winner into the core tier reads as the memory it replaced
    (its text, linked) and the review (linked to its decision); an entry written with ids
    in its reason reads the same way."""
    from curation.services.review import conflict_decide

    Memory.objects.filter(pk=email.pk).update(tier="core")
    email.refresh_from_db()
    phone = factories.MemoryFactory.create(
        client=personas.client, content="Prefers to be contacted by phone."
    )
    item = factories.ReviewItemFactory.create(memory=phone, other_memory=email)
    conflict_decide(item=item, decision="accept_new", actor=personas.supervisor, reason="Rang.")
    decided = AuditEntry.objects.get(action="review.decide", object_id=str(item.pk))
    hidden = factories.MemoryFactory.create(client=personas.advisor2_client, content="Sails.")
    audit(
        tenant_id=personas.tenant.pk,
        action="memory.set_tier",
        object_type="memory",
        object_id=phone.pk,
        reason=f"takes the core place of {email.pk} (review {item.pk}), not {hidden.pk}",
        data={"from": "core", "to": "core", "pinned": True},
    )

    client.force_login(personas.advisor)
    response = client.get(f"/clients/{personas.client.pk}/audit/")
    html = " ".join(response.content.decode().split())
    assert str(email.pk) not in _text(response) and str(item.pk) not in _text(response)
    memory_link = f'<a href="/memories/{email.pk}/">Prefers to be contacted by email.</a>'
    review_link = (
        f'<a href="/memories/{phone.pk}/audit/#entry-{decided.pk}">'
        f"the review decided on {decided.at:%-d %b %Y}</a>"
    )
    assert "Why: “takes the core place of the memory it superseded in review”" in _text(response)
    assert f"<li>takes the place of {memory_link}</li>" in html
    assert f"<li>{review_link}</li>" in html
    assert (
        f"Why: “takes the core place of {memory_link} (review {review_link}), not a memory "
        "you cannot see”"
    ) in html
    assert "Sails." not in html
