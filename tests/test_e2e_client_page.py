"""A client's page in Chromium: erasure asks first, a search is sent once, sessions start
when their first event happened, and Back shows a search box that agrees with the results."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from memories.models import Client, Event
from memories.services.write.ingest import EventInput, events_ingest
from tests import test_e2e_browser as e2e
from tests.support import browser as browser_support

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The browser tests' fixtures and helpers, shared (pytest finds fixtures by module name).
browser, emma, page = browser_support.browser, e2e.emma, e2e.page
login, shot = browser_support.login, browser_support.shot


def _errors(page) -> list[str]:
    """Script errors and console errors of ``page`` from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


def test_erasing_a_client_asks_first_and_a_no_erases_nothing(page, personas, emma):
    errors = _errors(page)
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog):
        asked.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    page.on("dialog", on_dialog)
    login(page, "supervisor")
    page.goto(f"/clients/{personas.client.pk}/")
    page.get_by_label("Type emma to confirm").fill("emma")
    page.get_by_role("button", name="Erase client").click()  # returns once it is answered
    assert asked == ["Erase everything memoryhub holds about this client? This cannot be undone."]
    assert page.url.endswith(f"/clients/{personas.client.pk}/")
    assert Client.objects.filter(pk=personas.client.pk).exists()

    answer["accept"] = True
    page.get_by_role("button", name="Erase client").click()
    page.wait_for_url(re.compile(r"/clients/$"))
    assert page.get_by_text("Erased emma:").is_visible()
    assert len(asked) == 2
    assert not Client.objects.filter(pk=personas.client.pk).exists()
    assert errors == []


def test_an_explicit_search_is_sent_once(page, personas, emma):
    errors = _errors(page)
    login(page, "advisor")
    page.goto(f"/clients/{personas.client.pk}/")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/memories/?" in r.url else None)

    page.get_by_label("Search this client's memory").fill("contacted phone")
    page.get_by_role("button", name="Search").click()
    page.locator("#memory-results").get_by_text("“contacted phone”").wait_for()
    page.wait_for_timeout(1000)  # past the typing pause: nothing else may follow
    assert [re.sub(r".*\?", "", url) for url in sent] == [
        "q=contacted%20phone&kind=&tier=&status=live&since=&until="
    ]

    sent.clear()
    search = page.get_by_label("Search this client's memory")
    search.fill("bristol")
    search.press("Enter")
    page.locator("#memory-results").get_by_text("“bristol”").wait_for()
    page.wait_for_timeout(1000)
    assert len(sent) == 1

    sent.clear()
    page.get_by_label("Kind").select_option("semantic")  # a filter searches at once
    page.locator("#memory-results").get_by_text("“bristol”").wait_for()
    page.wait_for_timeout(1000)
    assert len(sent) == 1
    assert errors == []


def test_a_session_starts_when_its_first_event_happened(page, personas):
    said = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    events_ingest(
        user=personas.advisor,
        tenant=personas.tenant,
        items=[
            EventInput(
                client="emma", session="call-7", content=text, observed_at=said.replace(minute=m)
            )
            for m, text in ((5, "I prefer to be contacted by email."), (0, "Good morning."))
        ],
    )
    # Posted later still (an import), the same session's earlier first words.
    events_ingest(
        user=personas.advisor,
        tenant=personas.tenant,
        items=[EventInput(client="emma", session="call-7", content="Hello?", observed_at=said)],
    )
    assert Event.objects.filter(session__external_ref="call-7").count() == 3
    login(page, "advisor")
    page.goto(f"/clients/{personas.client.pk}/")
    head = page.locator(".session-head").first
    assert "started 1 Oct 2026, 09:00" in head.inner_text()
    shot(page, "client-timeline")


def test_back_shows_the_search_box_and_results_of_the_same_search(page, personas, emma):
    login(page, "advisor")
    page.goto(f"/clients/{personas.client.pk}/")
    search = page.get_by_label("Search this client's memory")
    results = page.locator("#memory-results")
    search.fill("phone")
    search.press("Enter")
    results.get_by_text("“phone”").wait_for()
    page.wait_for_url(re.compile(r"\?q=phone"))
    search.fill("bristol")
    search.press("Enter")
    results.get_by_text("“bristol”").wait_for()
    page.wait_for_url(re.compile(r"\?q=bristol"))

    page.go_back()
    page.wait_for_url(re.compile(r"\?q=phone"))
    results.get_by_text("“phone”").wait_for()
    assert page.get_by_label("Search this client's memory").input_value() == "phone"

    page.go_forward()
    page.wait_for_url(re.compile(r"\?q=bristol"))
    results.get_by_text("“bristol”").wait_for()
    assert page.get_by_label("Search this client's memory").input_value() == "bristol"

    # A client's memory is not kept in the browser's storage for the history either.
    assert page.evaluate("Object.keys(localStorage)") == []
