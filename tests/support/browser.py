"""What browser tests share, as a pytest plugin (``pytest_plugins = ["tests.support.browser"]``
in the test module): one headless Chromium per module driven by Playwright against Django's
live server (``browser``), a page that fails the test on a script error (``page``), and
``ui``: log in and out, and screenshots under DATA_DIR/screenshots/ for a person to look
at (tests/test_e2e_browser.py keeps a page of its own)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "pw-for-tests"  # tests.support.factories.UserFactory's
SHOTS = Path(settings.DATA_DIR) / "screenshots"


@pytest.fixture(scope="module")
def browser(django_db_setup, django_db_blocker):
    """Playwright's sync API keeps an event loop running in this thread while it lives, so
    Django's async-safety check is off for exactly as long (the ORM calls the tests make
    between browser steps are still synchronous)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium chromium-driver")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    """A page whose script errors fail the test (``page.errors``, checked at the end)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors


def login(page, username: str) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))


def logout(page) -> None:
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/login/"))


def shot(page, name: str, *, width: int | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if width:
        page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(300)  # htmx settling and CSS transitions end first
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    if width:
        page.set_viewport_size({"width": 1280, "height": 900})


@pytest.fixture
def ui():
    return SimpleNamespace(login=login, logout=logout, shot=shot)
