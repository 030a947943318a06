"""The review queue in Chromium: a bulk form that keeps what was chosen after an error, a
conflict card ordered by when things were said, one rounding for a score, and decisions
that say what they did."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from curation.models import ReviewItem
from memories.models import Memory
from memories.services.jobs.runner import job_run
from tests import test_e2e_browser as e2e
from tests.support import browser as browser_support
from tests.support import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The browser tests' fixtures and helpers, shared (pytest finds fixtures by module name).
browser, page = browser_support.browser, e2e.page
login, shot = browser_support.login, browser_support.shot


def _promotion(client, content: str, score: float = 0.7) -> ReviewItem:
    said = factories.EventFactory.create(client=client, content=content)
    memory = factories.MemoryFactory.create(
        client=client, content=content, category="preference", evidence=[said]
    )
    Memory.objects.filter(pk=memory.pk).update(status="candidate")
    return factories.ReviewItemFactory.create(
        memory=memory,
        other_memory=None,
        type=ReviewItem.Type.PROMOTION,
        score=score,
        score_components={"repetition": 1.0, "confidence": 0.85},
    )


def test_a_bulk_rejection_without_a_reason_keeps_the_choice_and_the_ticks(page, personas):
    first = _promotion(personas.client, "Never invests in crypto-assets.")
    second = _promotion(personas.client, "Wants quarterly reports in Italian.")
    untouched = _promotion(personas.client, "Prefers calls on Tuesday mornings.")
    login(page, "supervisor")
    page.goto("/review/?type=promotion")
    for item in (first, second):
        page.locator(f"#select-{item.pk}").check()
    page.get_by_label("Decision for the selected").select_option("reject")
    page.get_by_role("button", name="Apply to selected").click()
    page.get_by_text("Say why you reject it").wait_for()

    # What the supervisor chose is still chosen: typing the reason and applying rejects.
    assert page.get_by_label("Decision for the selected").input_value() == "reject"
    assert page.locator(f"#select-{first.pk}").is_checked()
    assert page.locator(f"#select-{second.pk}").is_checked()
    assert not page.locator(f"#select-{untouched.pk}").is_checked()
    assert ReviewItem.objects.filter(state="open").count() == 3
    shot(page, "review-bulk-error")

    page.get_by_label("Reason").first.fill("Said once, in passing.")
    page.get_by_role("button", name="Apply to selected").click()
    page.get_by_text("2 items handled").wait_for()
    assert {i.pk: (i.state, i.decision) for i in ReviewItem.objects.filter(type="promotion")} == {
        first.pk: ("decided", "reject"),
        second.pk: ("decided", "reject"),
        untouched.pk: ("open", ""),
    }


def test_a_conflict_card_orders_by_when_it_was_said_and_steers_to_the_more_recent(
    page,
    personas,
):
    c = personas.client
    now = timezone.now()
    old_said = [
        factories.EventFactory.create(
            client=c, content=text, observed_at=now - timedelta(days=days)
        )
        for text, days in (("I moved to Sevilla.", 9), ("Sevilla is home now.", 5))
    ]
    stale = factories.EventFactory.create(
        client=c, content="Address: Madrid (imported).", observed_at=now - timedelta(days=60)
    )
    # Recorded first, observed later: the client's own words, twice.
    sevilla = factories.MemoryFactory.create(
        client=c,
        content="Lives in Sevilla.",
        evidence=old_said,
        observed_at=now - timedelta(days=9),
    )
    # Recorded later (a stale import), observed two months ago.
    madrid = factories.MemoryFactory.create(
        client=c, content="Lives in Madrid.", evidence=[stale], observed_at=now - timedelta(days=60)
    )
    factories.RelationFactory.create(source=madrid, target=sevilla, type="conflicts_with")
    item = factories.ReviewItemFactory.create(memory=madrid, other_memory=sevilla)

    login(page, "supervisor")
    page.goto("/review/")
    card = page.locator(f"#item-{item.pk}")
    sides = card.locator("section.side")
    assert sides.nth(0).locator("h4").text_content() == "Said earlier"
    assert sides.nth(0).locator(".side-content").inner_text() == "Lives in Madrid."
    assert sides.nth(1).locator("h4").text_content() == "Said more recently"
    assert sides.nth(1).locator(".side-content").inner_text() == "Lives in Sevilla."
    assert card.locator(".compare").inner_text() == (
        "“Lives in Sevilla.” is the more recent (observed 51 days later) and has more "
        "evidence (2 events against 1)."
    )
    primary = card.locator("form.decide button:not(.secondary)")
    assert primary.inner_text() == "Keep the more recent"
    shot(page, "review-conflict-ordered")

    primary.click()
    card.locator(".outcome").wait_for()
    assert card.locator(".outcome").inner_text() == (
        "Kept “Lives in Sevilla.”; “Lives in Madrid.” is superseded and no longer appears "
        "in search or context."
    )
    item.refresh_from_db()
    assert (item.decision, Memory.objects.get(pk=madrid.pk).status) == ("keep_old", "superseded")
    assert Memory.objects.get(pk=sevilla.pk).status == "active"


def test_a_scored_promotion_shows_one_rounding_and_says_what_approving_did(
    page,
    personas,
):
    c = personas.client
    sessions = [factories.SessionFactory.create(client=c) for _ in range(3)]
    said = [
        factories.EventFactory.create(client=c, session=s, content="No crypto for me, ever.")
        for s in sessions
    ]
    # 0.30·1 + 0.20·1 + 0.20·0.25 + 0.15·1 + 0.10·0 + 0.05·0.1 = 0.705: on the rounding edge
    memory = factories.MemoryFactory.create(
        client=c,
        content="Never invests in crypto-assets.",
        category="preference",
        confidence=0.25,
        importance=0.1,
        evidence=said,
        dup_count=4,
        usage_count=10,
    )
    job_run("score_promotions")
    item = ReviewItem.objects.get(type="promotion", memory=memory)
    assert item.score == 0.705

    login(page, "supervisor")
    page.goto("/review/?type=promotion")
    card = page.locator(f"#item-{item.pk}")
    assert card.locator(".score strong").inner_text() == "Promotion score 0.71"
    assert card.locator(".score .summary").inner_text().startswith("Score 0.71: restated 4×")
    card.get_by_label("Reason").fill("Said it three times.")
    card.get_by_role("button", name="Approve").click()
    card.locator(".outcome").wait_for()
    assert card.locator(".outcome").inner_text() == (
        "Approved: “Never invests in crypto-assets.” is now promoted, so search and context "
        "rank it above equally relevant memories. Its tier stays recall: tiers follow use, "
        "or a supervisor sets one on the memory's page."
    )
    shot(page, "review-promotion-approved")


def test_a_rejected_promotion_is_no_longer_a_candidate(page, personas):
    item = _promotion(personas.client, "Never invests in crypto-assets.")
    login(page, "supervisor")
    page.goto("/review/?type=promotion")
    assert page.locator("#bulk-form").is_visible()
    card = page.locator(f"#item-{item.pk}")
    card.get_by_label("Reason").fill("Said once, in passing.")
    card.get_by_role("button", name="Reject").click()
    card.locator(".outcome").wait_for()
    assert card.locator(".outcome").inner_text() == (
        "Rejected: “Never invests in crypto-assets.” is no longer a candidate; it stays an "
        "active memory and nothing else changed."
    )
    # The last card decided: no bulk bar over a queue with nothing left to select (it hides
    # once the card is marked closed, as htmx settles the swap: waited for, not sampled).
    expect(page.locator("#bulk-form")).to_be_hidden()
    page.goto(f"/memories/{item.memory_id}/")
    assert page.locator(".page-head .badge.st-active").inner_text() == "Active"
    assert page.locator(".page-head .badge.st-candidate").count() == 0


def test_a_decision_in_the_browser_is_in_the_agents_context_at_once(
    page,
    personas,
    monkeypatch,
    api_client,
):
    """With no worker running: a refresh queued for one would wait in the broker."""
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)
    c = personas.client
    email = factories.MemoryFactory.create(client=c, content="Prefers to be contacted by email.")
    phone = factories.MemoryFactory.create(client=c, content="Prefers to be contacted by phone.")
    item = factories.ReviewItemFactory.create(memory=phone, other_memory=email)
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)

    def context_text() -> str:
        response = api_client.post(
            "/api/v1/context/",
            {"client": "emma", "message": "How do I reach her?"},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
        return response.json()["text"]

    assert "Prefers to be contacted by email." in context_text()
    login(page, "supervisor")
    page.goto("/review/")
    card = page.locator(f"#item-{item.pk}")
    card.get_by_role("button", name="Keep the more recent").click()
    card.locator(".outcome").wait_for()
    text = context_text()
    assert "Prefers to be contacted by email." not in text
    assert "Prefers to be contacted by phone." in text
