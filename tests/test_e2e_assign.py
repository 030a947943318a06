"""A client an agent created reaches an advisor, in Chromium: the agent names it through
the API, a supervisor ticks the advisor on its page, and the advisor's list has it at
once, with its name and language."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from tests.support import browser as browser_support
from tests.support import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

browser, page = browser_support.browser, browser_support.page
login, logout, shot = browser_support.login, browser_support.logout, browser_support.shot


def test_a_supervisor_assigns_an_agent_created_client_and_the_advisor_sees_it(page, personas):
    agent = APIClient()
    key = factories.api_key_for(personas.supervisor, personas.tenant)[1]
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    response = agent.put(
        "/api/v1/clients/laura-conti/",
        {"display_name": "Laura Conti", "language": "it"},
        format="json",
    )
    assert response.status_code == 201

    login(page, "advisor")
    page.goto("/clients/")
    assert page.get_by_text("Laura Conti").count() == 0
    logout(page)

    login(page, "supervisor")
    page.goto("/clients/?sort=unassigned")
    row = page.locator(".client-list li").first
    assert row.locator(".client-name").inner_text() == "Laura Conti"
    assert row.get_by_text("no advisor yet").is_visible()
    row.get_by_role("link", name=re.compile("Laura Conti")).click()
    page.get_by_role("heading", name="Laura Conti").wait_for()
    assert page.get_by_text("laura-conti · speaks Italian ·").is_visible()
    panel = page.locator("#advisors-panel")
    panel.get_by_label("advisor", exact=True).check()
    panel.get_by_role("button", name="Save advisors").click()
    panel.get_by_text("Saved: the advisors ticked see this client from now on.").wait_for()
    assert panel.get_by_label("advisor", exact=True).is_checked()
    shot(page, "client-advisors")
    logout(page)

    login(page, "advisor")
    page.goto("/clients/")
    link = page.get_by_role("link", name=re.compile("Laura Conti"))
    assert link.inner_text().split("\n") == ["Laura Conti", "laura-conti · Italian"]


def test_the_admins_object_permissions_page_logs_no_policy_error(page, personas):
    """The admin's door stays open too, and Chromium refuses nothing on it (``page``
    fails the test on any console error)."""
    login(page, "admin")
    page.goto(f"/admin/memories/client/{personas.client.pk}/permissions/")
    page.get_by_role("heading", name=re.compile("Object permissions")).first.wait_for()
    assert page.locator("style").count() == 0
