"""End to end, in headless Chromium driven by Playwright against Django's live server:
what advisors and supervisors do in the web app. Each main page is also saved as a
screenshot under DATA_DIR/screenshots/ for a person to look at."""

from __future__ import annotations

import re

import pytest

from curation.models import ReviewItem
from memories.models import Memory
from tests.support import factories
from tests.support.browser import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# Its browser fixture; ``page`` below is this module's own.
pytest_plugins = ["tests.support.browser"]


@pytest.fixture
def page(browser, live_server):
    """A page of its own here: these tests do not fail on a console error (the shared
    ``page`` of tests/support/browser.py does)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def emma(personas):
    """Emma's memory: email superseded by phone, which a later statement extends."""
    c = personas.client
    c.display_name = "Emma Clarke"
    c.save()
    session = factories.SessionFactory.create(
        client=c, external_ref="call-42", agent="advisor-copilot"
    )
    said = [
        factories.EventFactory.create(client=c, session=session, content=text)
        for text in (
            "I prefer to be contacted by email.",
            "Actually, please phone me instead.",
            "Phone me after 5 pm on weekdays.",
        )
    ]
    email = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by email.", evidence=[said[0]]
    )
    phone = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by phone.", evidence=[said[1]]
    )
    evening = factories.MemoryFactory.create(
        client=c, content="Prefers phone calls after 5 pm on weekdays.", evidence=[said[2]]
    )
    factories.MemoryFactory.create(client=c, content="Prefers afternoon meetings.", tier="core")
    factories.MemoryFactory.create(
        client=c, content="Plans to buy a house in Bristol.", category="goal"
    )
    Memory.objects.filter(pk=email.pk).update(status="superseded")
    factories.RelationFactory.create(source=phone, target=email, type="updates")
    factories.RelationFactory.create(source=evening, target=phone, type="extends")
    return {"email": email, "phone": phone, "evening": evening}


def test_advisor_searches_a_clients_memory_and_opens_its_lineage(page, personas, emma):
    login(page, "advisor")
    shot(page, "home-advisor")
    page.get_by_role("link", name="Clients", exact=True).first.click()
    page.get_by_role("link", name=re.compile("Emma Clarke")).click()
    page.get_by_role("heading", name="Emma Clarke").wait_for()
    shot(page, "client-page")
    shot(page, "client-page-375", width=375)

    page.get_by_label("Search this client's memory").fill("contacted phone")
    page.get_by_role("button", name="Search").click()
    results = page.locator("#memory-results")
    results.get_by_text("“contacted phone”").wait_for()
    assert "Prefers to be contacted by email." not in results.inner_text()  # superseded
    assert "?q=contacted+phone" in page.url  # the URL can be shared
    shot(page, "client-search")

    results.get_by_role("link", name="Prefers to be contacted by phone.").click()
    page.get_by_role("heading", name="Lineage").wait_for()
    lineage = page.locator("svg.lineage")
    assert lineage.locator("a.node").count() == 3
    assert lineage.locator("path.edge-updates").count() == 1
    assert lineage.locator("path.edge-extends").count() == 1
    assert page.get_by_text("Actually, please phone me instead.").is_visible()  # evidence
    shot(page, "memory-lineage")
    shot(page, "memory-lineage-375", width=375)

    lineage.locator("a.node", has_text="by email").click()  # the older version
    page.wait_for_url(f"**/memories/{emma['email'].pk}/")
    assert page.get_by_text("superseded", exact=False).first.is_visible()


def test_supervisor_resolves_a_conflict_and_the_old_memory_leaves_search(page, personas):
    c = personas.client
    told = factories.EventFactory.create(client=c, content="Email is the best way to reach me.")
    retold = factories.EventFactory.create(client=c, content="Call me, I never read email.")
    old = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by email.", evidence=[told], confidence=0.9
    )
    new = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by phone.", evidence=[retold], confidence=0.75
    )
    factories.RelationFactory.create(source=new, target=old, type="conflicts_with")
    item = factories.ReviewItemFactory.create(memory=new, other_memory=old)

    login(page, "supervisor")
    page.get_by_role("link", name="Review queue").first.click()
    card = page.locator(f"#item-{item.pk}")
    card.get_by_text("Call me, I never read email.").wait_for()
    shot(page, "review-conflicts")
    shot(page, "review-conflicts-375", width=375)

    card.get_by_label("Reason").fill("Confirmed on the phone.")
    card.get_by_role("button", name="Keep the more recent").click()
    page.get_by_text("Kept “Prefers to be contacted by phone.”").wait_for()
    shot(page, "review-decided")
    item.refresh_from_db()
    assert (item.state, item.decision, item.reason) == (
        "decided",
        "accept_new",
        "Confirmed on the phone.",
    )

    page.goto(f"/clients/{c.pk}/?q=contacted")
    results = page.locator("#memory-results")
    results.locator("p.summary").wait_for()
    assert "Prefers to be contacted by phone." in results.inner_text()
    assert "Prefers to be contacted by email." not in results.inner_text()

    # The winner matters: the supervisor pins it in the core tier from its page.
    results.get_by_role("link", name="Prefers to be contacted by phone.").click()
    page.get_by_label("Move to tier").select_option("core")
    page.get_by_label("Reason (goes in the audit trail)").fill("Needed in every call.")
    page.get_by_role("button", name="Set tier").click()
    page.get_by_text("Moved from recall to core and pinned.").wait_for()
    shot(page, "memory-supervisor")
    new.refresh_from_db()
    assert (new.tier, new.tier_pinned) == ("core", True)


@pytest.fixture
def candidate(personas):
    said = factories.EventFactory.create(client=personas.client, content="No crypto for me, ever.")
    memory = factories.MemoryFactory.create(
        client=personas.client,
        content="Never invests in crypto-assets.",
        category="preference",
        evidence=[said],
    )
    return factories.ReviewItemFactory.create(
        memory=memory,
        other_memory=None,
        type=ReviewItem.Type.PROMOTION,
        score=0.84,
        recommended=True,
        score_components={
            "repetition": 1.0,
            "usage": 0.5,
            "confidence": 0.9,
            "evidence": 0.9,
            "stability": 0.8,
            "impact": 0.6,
            "restated": 4,
        },
    )


def test_supervisor_sees_promotion_candidates_with_their_score(page, personas, candidate):
    login(page, "supervisor")
    page.get_by_role("link", name="Review queue").first.click()
    page.get_by_role("link", name=re.compile("Promotions")).click()
    card = page.locator(f"#item-{candidate.pk}")
    card.get_by_text("Promotion score 0.84").wait_for()
    assert card.get_by_role("row", name=re.compile("Evidence")).inner_text().split() == [
        "Evidence",
        "0.90",
        "0.15",  # its weight in the score (PROMOTION_WEIGHTS)
    ]
    assert card.get_by_text("No crypto for me, ever.").is_visible()
    shot(page, "review-promotions")
    shot(page, "review-promotions-375", width=375)


def test_supervisor_approves_a_promotion_and_it_shows_as_promoted(page, personas, candidate):
    item, memory = candidate, candidate.memory
    login(page, "supervisor")
    page.goto("/review/?type=promotion")
    card = page.locator(f"#item-{item.pk}")
    card.get_by_label("Reason").fill("Said it three times.")
    card.get_by_role("button", name="Approve").click()
    page.get_by_text("Approved").first.wait_for()
    memory.refresh_from_db()
    assert memory.status == "promoted"
    page.goto(f"/memories/{memory.pk}/")
    assert page.locator(".page-head .badge.st-promoted").inner_text() == "Promoted"


def test_an_advisor_cannot_reach_another_advisors_client_by_url(page, personas):
    factories.MemoryFactory.create(
        client=personas.advisor2_client, content="Carlos retires in 2031."
    )
    login(page, "advisor")
    for url in (
        f"/clients/{personas.advisor2_client.pk}/",
        f"/clients/{personas.advisor2_client.pk}/memories/?q=retires",
        f"/clients/{personas.advisor2_client.pk}/timeline/",
    ):
        response = page.goto(url)
        assert response.status == 404, url
        assert "Carlos" not in page.content()
    page.goto("/clients/")
    assert page.locator(".client-list li").count() == 3  # emma, giulia, marco
    shot(page, "client-list")


def test_keyboard_reaches_a_client_and_sees_where_focus_is(page, personas):
    login(page, "advisor")
    page.goto("/clients/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    assert skip.evaluate("el => el === document.activeElement")
    assert skip.bounding_box()["x"] >= 0  # shown when focused
    page.get_by_label("Find a client").focus()
    page.keyboard.type("emm")
    page.locator("#client-rows").get_by_role("link").first.wait_for()
    # A locator waits in Playwright's own world: a predicate string would be an eval, which
    # the pages' Content-Security-Policy refuses.
    from playwright.sync_api import expect

    expect(page.locator(".client-list li")).to_have_count(1)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past the Find button, to the only client
    focused = page.evaluate("document.activeElement.textContent")
    assert personas.client.external_ref in focused
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/clients/{personas.client.pk}/")


def test_a_client_sees_a_read_only_page_of_their_core_memories(page, personas, emma):
    login(page, "client")
    page.get_by_role("link", name="My memory").first.click()
    page.get_by_role("heading", name="Core memories").wait_for()
    body = page.locator("main").inner_text()
    assert "Prefers afternoon meetings." in body
    assert "Prefers to be contacted by phone." not in body
    assert page.locator("main form").count() == 0
    shot(page, "my-memory-375", width=375)
