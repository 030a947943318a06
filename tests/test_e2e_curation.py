"""End to end, in headless Chromium through Playwright: curation that people can trust.
An advisor corrects and forgets from a memory's page and a supervisor undoes; the audit
trail says who did what; the client page flags conflicts and shows what the agent will
read; the client list counts and sorts; the review queue filters, orders and says what a
decision does. Each new page is saved as a screenshot under DATA_DIR/screenshots/."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from curation.models import ReviewItem
from memories.models import AuditEntry, Client, Memory
from tests.support import factories

pytest_plugins = ["tests.support.browser"]  # its fixtures: browser, page
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _words(locator) -> str:
    """The text a person reads, one space between words (flex layouts break lines)."""
    return " ".join(locator.inner_text().split())


def _contact(client, value, days_ago, evidence=()):
    return factories.MemoryFactory.create(
        client=client,
        content=f"Prefers to be contacted by {value}.",
        category="preference",
        attribute="contact_channel",
        attribute_value=value,
        observed_at=timezone.now() - timedelta(days=days_ago),
        evidence=list(evidence),
    )


@pytest.fixture
def sofia(personas):
    """Emma, renamed: three live contact preferences, a conflict waiting, a timeline."""
    c = personas.client
    Client.objects.filter(pk=c.pk).update(display_name="Sofia Bernasconi")
    session = factories.SessionFactory.create(client=c, external_ref="call-7", agent="copilot")
    said = [
        factories.EventFactory.create(
            client=c,
            session=session,
            content=text,
            observed_at=timezone.now() - timedelta(days=days),
        )
        for text, days in (
            ("Email is best for me.", 9),
            ("Actually, phone me.", 5),
            ("Send letters by post.", 1),
            ("I live in Madrid.", 3),
            ("I live in Sevilla.", 4),
        )
    ]
    contacts = [
        _contact(c, v, d, [e])
        for v, d, e in zip(("email", "phone", "post"), (9, 5, 1), said, strict=False)
    ]
    madrid = factories.MemoryFactory.create(
        client=c, content="Lives in Madrid.", evidence=[said[3]]
    )
    sevilla = factories.MemoryFactory.create(
        client=c, content="Lives in Sevilla.", evidence=[said[4]]
    )
    factories.RelationFactory.create(source=sevilla, target=madrid, type="conflicts_with")
    conflict = factories.ReviewItemFactory.create(memory=sevilla, other_memory=madrid)
    return {"contacts": contacts, "madrid": madrid, "conflict": conflict, "events": said}


def test_an_advisor_corrects_and_forgets_and_a_supervisor_undoes(page, ui, personas, sofia):
    email = sofia["contacts"][0]
    ui.login(page, "advisor")
    page.goto(f"/memories/{email.pk}/")
    page.get_by_text("Correct this memory").click()
    page.get_by_label("What is right").fill("Prefers to be contacted by WhatsApp.")
    page.get_by_label("Why (goes in the audit trail)").fill("She asked for WhatsApp on the call.")
    ui.shot(page, "memory-correct")
    ui.shot(page, "memory-correct-375", width=375)
    page.get_by_role("button", name="Save the correction").click()
    page.get_by_text("Corrected. This is the new memory").wait_for()
    new = Memory.objects.get(content="Prefers to be contacted by WhatsApp.")
    assert page.url.endswith(f"/memories/{new.pk}/")
    assert _words(page.locator(".page-head .badge.st-active")) == "Active"
    assert page.get_by_role("link", name="Prefers to be contacted by email.").first.is_visible()
    ui.shot(page, "memory-corrected")

    phone = sofia["contacts"][1]
    page.goto(f"/memories/{phone.pk}/")
    page.get_by_text("Forget this memory").click()
    page.get_by_label("Why forget it").fill("Her old number, no longer in use.")
    page.get_by_role("button", name="Forget it").click()
    page.get_by_text("Forgotten: it no longer reaches search or context.").wait_for()
    assert _words(page.locator(".page-head .badge.st-deleted")) == "Deleted"
    assert page.get_by_role("button", name=re.compile("Undo")).count() == 0  # advisors do not
    ui.logout(page)

    ui.login(page, "supervisor")
    page.goto(f"/memories/{phone.pk}/")
    page.get_by_label("Why undo it").fill("Still her number.")
    page.get_by_role("button", name="Undo the forget").click()
    page.get_by_text("Undone: this memory is active again.").wait_for()
    phone.refresh_from_db()
    assert phone.status == "active"

    page.get_by_role("link", name="Audit trail of this memory").click()
    page.get_by_role("heading", name="Audit trail").wait_for()
    entries = page.locator(".audit-entry")
    assert entries.count() == 2
    assert "supervisor undid a change" in _words(entries.nth(0))
    assert "Why: “Still her number.”" in _words(entries.nth(0))
    assert "advisor forgot it" in _words(entries.nth(1))
    assert "Undone since." in _words(entries.nth(1))
    ui.shot(page, "memory-audit")
    page.get_by_role("link", name="The whole client's trail").click()
    page.get_by_role("heading", name="Audit trail").wait_for()
    assert page.locator(".audit-entry").count() == 4  # and the correction, and the assignment
    correction = page.locator(".audit-entry", has_text="corrected a memory")
    assert "She asked for WhatsApp on the call." in _words(correction)
    ui.shot(page, "client-audit")
    ui.shot(page, "client-audit-375", width=375)

    correction.get_by_role("button", name="Undo this correction").click()
    page.get_by_text("Undone: this memory is active again.").wait_for()
    assert page.url.endswith(f"/memories/{email.pk}/")
    new.refresh_from_db()
    assert new.status == "deleted"
    assert AuditEntry.objects.filter(action="memory.undo").count() == 2


def test_the_client_page_flags_conflicts_and_shows_what_the_agent_reads(page, ui, personas, sofia):
    ui.login(page, "advisor")
    page.goto(f"/clients/{personas.client.pk}/")
    attention = page.locator("#attention")
    assert "1 open conflict" in _words(attention)
    assert "Lives in Madrid. contradicted by Lives in Sevilla." in _words(attention)
    assert "contact channel · 3 live" in _words(attention).lower()  # h4: upper case
    ui.shot(page, "client-attention")

    page.get_by_label("Message to the agent").fill("How should we contact her?")
    page.get_by_label("Budget (characters)").fill("400")
    page.get_by_role("button", name="Preview").click()
    result = page.locator("#preview-result")
    result.get_by_text("of 400 characters").wait_for()
    text = result.locator("pre.prompt").inner_text()
    today, _, relevant = text.split("\n", 2)
    assert today.startswith("Today is ") and relevant.startswith("Relevant to this message:")
    assert "Prefers to be contacted by post." in text
    assert len(text) <= 400
    assert page.url.endswith(f"/clients/{personas.client.pk}/")  # the page stays
    ui.shot(page, "client-context-preview")
    ui.shot(page, "client-context-preview-375", width=375)

    event = page.locator(".event", has_text="Send letters by post.")
    event.get_by_role("link", name="Prefers to be contacted by post.").click()
    page.wait_for_url(f"**/memories/{sofia['contacts'][2].pk}/")

    page.goto(f"/clients/{personas.client.pk}/")
    page.get_by_label("Search this client's memory").fill("quantum chromodynamics")  # as typed
    page.get_by_text("No memory matches “quantum chromodynamics”").wait_for()
    assert page.locator("#memory-results .memory-row").count() == 0
    ui.shot(page, "client-search-nothing")


def test_a_supervisor_exports_a_client_from_its_page(page, ui, personas, sofia):
    ui.login(page, "supervisor")
    page.goto(f"/clients/{personas.client.pk}/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export everything (JSON)").click()
    assert download.value.suggested_filename == "emma-export.json"
    document = json.loads(Path(download.value.path()).read_text())
    assert (document["format"], document["client"]["external_ref"]) == (
        "memoryhub.client-export/1",
        "emma",
    )
    assert len(document["memories"]) == 5
    assert page.get_by_role("link", name="API docs").first.get_attribute("href") == "/api/v1/docs/"


def test_the_client_list_counts_and_sorts(page, ui, personas, sofia):
    for ref, name in (("giulia", "Giulia Rossi"), ("marco", "Marco Rossi")):
        Client.objects.filter(tenant=personas.tenant, external_ref=ref).update(display_name=name)
    for n in range(6):
        factories.MemoryFactory.create(client=personas.parent, content=f"Fact number {n}.")
    ui.login(page, "advisor")
    page.goto("/clients/")
    first = page.locator(".client-list li").first
    assert "Giulia Rossi" in _words(first)  # by name
    page.get_by_label("Sort by").select_option("conflicts")
    page.wait_for_url("**/clients/?*sort=conflicts*")
    first = page.locator(".client-list li").first
    first.get_by_text("Sofia Bernasconi").wait_for()
    assert "1 open conflict" in _words(first)
    assert "several live facts about one thing" in _words(first)
    assert "5 live memories" in _words(first)
    ui.shot(page, "client-list-sorted")
    page.get_by_label("Sort by").select_option("memories")
    page.locator(".client-list li").first.get_by_text("Giulia Rossi").wait_for()


def test_the_supervisor_filters_the_queue_and_reads_what_a_decision_does(page, ui, personas, sofia):
    c, parent = personas.client, personas.parent
    Client.objects.filter(pk=parent.pk).update(display_name="Giulia Rossi")
    items = []
    for client, content, score, recommended in (
        (c, "Never invests in crypto-assets.", 0.84, True),
        (parent, "Wants quarterly reports in Italian.", 0.91, False),
        (c, "Likes green tea.", 0.66, False),
    ):
        items.append(
            factories.ReviewItemFactory.create(
                memory=factories.MemoryFactory.create(
                    client=client, content=content, category="preference"
                ),
                other_memory=None,
                type=ReviewItem.Type.PROMOTION,
                score=score,
                recommended=recommended,
                score_components={"evidence": 0.9},
            )
        )
    ui.login(page, "supervisor")
    page.goto("/review/?type=promotion")
    cards = page.locator(".review-card")
    assert [cards.nth(i).get_attribute("id") for i in range(3)] == [
        f"item-{items[0].pk}",  # recommended first
        f"item-{items[1].pk}",
        f"item-{items[2].pk}",
    ]
    effects = cards.first.locator("dl.effects")
    assert "Status active → promoted" in _words(effects)
    assert "the profile keeps it among the stable facts" in _words(effects)
    page.get_by_label("Client").select_option(label="Sofia Bernasconi")
    page.wait_for_url(f"**/review/?*client={c.pk}*")
    page.wait_for_function("document.querySelectorAll('.review-card').length === 2")
    page.get_by_label("Order").select_option("score")
    page.wait_for_url("**sort=score*")
    assert page.locator(".review-card").first.get_attribute("id") == f"item-{items[0].pk}"
    ui.shot(page, "review-filtered")
    ui.shot(page, "review-filtered-375", width=375)

    page.goto(f"/clients/{c.pk}/")
    page.locator("#attention").get_by_role("link", name="decide").click()
    page.wait_for_url(f"**/review/?type=conflict&client={c.pk}#item-{sofia['conflict'].pk}")
    assert page.locator(".review-card").count() == 1
    assert "Keep the more recent" in _words(page.locator("dl.effects"))
