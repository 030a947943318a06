"""Pages in Chromium: a superseded memory says what replaced it and why, error pages look
like the app and say why, nothing the pages ask for is missing, and no page breaks the
Content-Security-Policy."""

from __future__ import annotations

import re

import pytest

from curation.models import ReviewItem
from memories.models import AuditEntry, Memory
from tests import test_e2e_browser as e2e
from tests.support import browser as browser_support
from tests.support import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The browser tests' fixtures and helpers, shared (pytest finds fixtures by module name).
browser, emma, page = browser_support.browser, e2e.emma, e2e.page
login, shot = browser_support.login, browser_support.shot

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

# Recorded by the page itself: every report of the policy, from the first script on.
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@pytest.fixture
def watched(page):
    """``page`` with a record of what went wrong: CSP reports (console and event), script
    errors, and answers of 400 or more (but the ones a step expects)."""
    page.add_init_script(RECORD_VIOLATIONS)
    seen: dict[str, list[str]] = {"console": [], "failed": []}
    page.on(
        "console",
        lambda m: seen["console"].append(m.text) if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda exc: seen["console"].append(f"pageerror: {exc}"))
    page.on(
        "response",
        lambda r: seen["failed"].append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    page.seen = seen
    return page


def _violations(page) -> list[str]:
    return page.evaluate("window.__csp") or []


def _conflict(personas):
    c = personas.client
    told = factories.EventFactory.create(client=c, content="Email is the best way to reach me.")
    retold = factories.EventFactory.create(client=c, content="Call me, I never read email.")
    old = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by email.", evidence=[told], tier="core"
    )
    Memory.objects.filter(pk=old.pk).update(tier_pinned=True)
    new = factories.MemoryFactory.create(
        client=c, content="Prefers to be contacted by phone.", evidence=[retold]
    )
    factories.RelationFactory.create(source=new, target=old, type="conflicts_with")
    return old, new, factories.ReviewItemFactory.create(memory=new, other_memory=old)


def test_a_superseded_memory_says_what_replaced_it_and_why_and_offers_no_tier(page, personas):
    old, new, item = _conflict(personas)
    login(page, "supervisor")
    page.goto("/review/")
    card = page.locator(f"#item-{item.pk}")
    card.get_by_label("Reason").fill("Confirmed on the phone.")
    card.get_by_role("button", name="Keep the more recent").click()
    card.locator(".outcome").wait_for()
    assert ReviewItem.objects.get(pk=item.pk).decided_at is not None
    # When the page says it was decided: the time of the entry that took it out of the
    # answers (a slow run can put the decision's own time a minute before it).
    decided = AuditEntry.objects.get(object_id=str(old.pk), action="memory.invalidate").at

    page.goto(f"/memories/{old.pk}/")
    why = page.locator(".page-head .why")
    assert why.inner_text() == (
        "Why superseded: in review, “Prefers to be contacted by phone.” was accepted in its "
        f"place, by supervisor on {decided:%-d %b %Y, %H:%M}: “Confirmed on the phone.”"
    )
    # No "core · pinned": out of every answer, it has no tier.
    assert [
        text.strip() for text in page.locator(".page-head .badges .badge").all_text_contents()
    ] == ["Semantic · Fact", "Superseded"]
    assert page.get_by_label("Move to tier").count() == 0
    shot(page, "memory-superseded")

    why.get_by_role("link", name="“Prefers to be contacted by phone.”").click()
    page.wait_for_url(f"**/memories/{new.pk}/")


def test_error_pages_look_like_the_app_and_say_why(watched, personas):
    login(watched, "client")
    response = watched.goto("/review/")
    assert response.status == 403
    main = watched.locator("main")
    assert main.get_by_role("heading").inner_text() == "You may not do this"
    assert "The review queue is for supervisors and admins." in main.inner_text()
    assert watched.get_by_role("navigation", name="Main").get_by_role("link").all_inner_texts() == [
        "My memory"
    ]
    background = watched.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(244, 245, 248)"  # the app's stylesheet (--bg)
    shot(watched, "error-403")

    response = watched.goto(f"/memories/{personas.client.pk}/")  # no such memory
    assert response.status == 404
    assert main.get_by_role("heading").inner_text() == "Not found"
    assert watched.get_by_role("link", name="Back to the start page").is_visible()
    shot(watched, "error-404")
    assert [
        f for f in watched.seen["failed"] if "/review/" not in f and "/memories/" not in f
    ] == []


def test_the_main_pages_break_no_content_security_policy(watched, personas, emma):
    _, new, item = _conflict(personas)
    page = watched
    login(page, "supervisor")
    visited = []

    def visit(url: str) -> None:
        response = page.goto(url)
        assert response.headers["content-security-policy"] == POLICY, url
        page.wait_for_load_state("networkidle")
        visited.append((url, _violations(page)))

    visit("/")
    visit("/clients/")
    page.get_by_label("Find a client").fill("emm")
    page.locator(".client-list li").first.wait_for()
    visit(f"/clients/{personas.client.pk}/")
    page.get_by_label("Search this client's memory").fill("phone")
    page.get_by_role("button", name="Search").click()
    page.locator("#memory-results").get_by_text("best first").wait_for()
    visited.append(("client search", _violations(page)))
    visit(f"/memories/{new.pk}/")
    page.get_by_label("Move to tier").select_option("core")
    page.get_by_role("button", name="Set tier").click()
    page.get_by_text("Moved from recall to core").wait_for()
    visited.append(("tier move", _violations(page)))
    visit("/review/")
    page.locator(f"#item-{item.pk}").get_by_role("button", name="Keep both").click()
    page.get_by_text("Both stay").wait_for()
    visited.append(("review decision", _violations(page)))
    visit("/review/?type=promotion")
    visit("/admin/")
    visit("/admin/memories/memory/")
    visit(f"/admin/memories/memory/{new.pk}/change/")
    visit("/api/v1/docs/")
    page.locator(".swagger-ui .info").wait_for()
    visited.append(("api docs rendered", _violations(page)))
    # The way back to the app from the reference.
    assert page.get_by_role("link", name="← memoryhub").get_attribute("href") == "/"
    login(page, "client")
    visit("/me/")

    assert [(url, v) for url, v in visited if v] == []
    assert [m for m in page.seen["console"] if "Content Security Policy" in m] == []
    assert page.seen["failed"] == []


def test_every_answer_names_its_favicon_and_the_old_address_leads_to_it(watched, personas):
    login(watched, "supervisor")
    watched.goto("/admin/")  # the admin's pages name no icon: the browser asks /favicon.ico
    response = watched.goto("/favicon.ico")
    assert response.status == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert re.search(r"/static/memoryhub/icon\.svg$", response.url)
    assert watched.seen["failed"] == []


def test_the_admins_memory_list_fits_a_laptop_screen(watched, personas):
    """At 1,280 px the memory list needs no sideways scrolling, long statements included."""
    for n in range(3):
        factories.MemoryFactory.create(
            client=personas.client,
            content=f"Statement {n}: " + "the client explained at length what matters " * 6,
        )
    login(watched, "admin")
    watched.goto("/admin/memories/memory/")
    watched.locator("#result_list").wait_for()
    shot(watched, "admin-memory-list")
    # Nothing scrolls sideways, the page or the list in its box.
    assert (
        watched.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        <= 0
    )
    results = watched.locator(".results")
    assert results.evaluate("box => box.scrollWidth - box.clientWidth") <= 0
    # The statement has room: a line of it holds more than a few words.
    cell = watched.locator("#result_list td.field-text, #result_list th.field-text").first
    assert cell.evaluate("c => c.getBoundingClientRect().width") >= 300
