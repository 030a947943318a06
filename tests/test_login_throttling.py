"""Failed logins are counted per account and per address: five wrong passwords lock the
account for 15 minutes, twenty from one address lock the address; while locked the
right password is refused too; the lockout is audited once; the admin's login counts
the same way."""

from __future__ import annotations

import pytest
from django.db.models import F
from django.test import Client as Browser

from memories.models import AuditEntry, RateWindow

pytestmark = pytest.mark.django_db

RIGHT = "pw-for-tests"
LOCKED = "Too many failed attempts; try again in 15 minutes."
WRONG = "Your username and password didn't match."


def _login(browser: Browser, username: str, password: str, *, address="127.0.0.1", path="/login/"):
    return browser.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def _signed_in_as(browser: Browser) -> str | None:
    response = browser.get("/api/v1/health/")
    caller = response.json()["caller"]
    return caller["user"] if caller else None


def _cool_off(scope: str) -> None:
    """The lockout's 15 minutes pass: the rows' last attempt moves 15 minutes back."""
    RateWindow.objects.filter(key__startswith=f"memoryhub:login:{scope}:").update(
        window_start=F("window_start") - 15 * 60
    )


def test_five_wrong_passwords_lock_the_account_and_then_refuse_the_right_one(personas):
    browser = Browser()
    for _ in range(4):
        response = _login(browser, "supervisor", "wrong")
        assert response.status_code == 200
        assert WRONG in response.content.decode()
        assert LOCKED not in response.content.decode()
    assert AuditEntry.objects.filter(action="login.locked").count() == 0

    fifth = _login(browser, "supervisor", "wrong")
    assert fifth.status_code == 429
    assert fifth["Retry-After"] == "900"
    assert LOCKED in fifth.content.decode()

    right = _login(browser, "supervisor", RIGHT)
    assert right.status_code == 429
    assert LOCKED in right.content.decode()
    assert _signed_in_as(browser) is None

    entry = AuditEntry.objects.get(action="login.locked")
    assert (entry.tenant_id, entry.object_type, entry.object_id, entry.actor_id) == (
        personas.tenant.pk,
        "user",
        str(personas.supervisor.pk),
        None,
    )
    assert entry.actor_label == "login from 127.0.0.1"
    assert entry.reason == "5 failed logins; locked for 15 minutes"
    assert entry.data == {"scope": "account", "failures": 5, "address": "127.0.0.1"}


def test_a_locked_account_is_locked_from_every_address_and_others_are_not(personas):
    for _ in range(5):
        _login(Browser(), "supervisor", "wrong")
    elsewhere = Browser()
    assert _login(elsewhere, "supervisor", RIGHT, address="10.0.0.9").status_code == 429
    assert _signed_in_as(elsewhere) is None

    colleague = Browser()
    assert _login(colleague, "advisor", RIGHT).status_code == 302  # same address, own account
    assert _signed_in_as(colleague) == "advisor"


def test_the_account_opens_again_after_the_lockout(personas):
    for _ in range(6):
        _login(Browser(), "supervisor", "wrong")
    _cool_off("account")
    browser = Browser()
    assert _login(browser, "supervisor", RIGHT).status_code == 302
    assert _signed_in_as(browser) == "supervisor"
    # the success started the account afresh: four more mistakes do not lock it
    for _ in range(4):
        assert _login(Browser(), "supervisor", "wrong").status_code == 200
    assert _login(Browser(), "supervisor", RIGHT).status_code == 302
    assert AuditEntry.objects.filter(action="login.locked").count() == 1


def test_attempts_while_locked_do_not_make_the_lockout_longer(personas):
    for _ in range(5):
        _login(Browser(), "supervisor", "wrong")
    (before,) = RateWindow.objects.filter(key__startswith="memoryhub:login:account:")
    for _ in range(3):
        assert _login(Browser(), "supervisor", "wrong").status_code == 429
    (after,) = RateWindow.objects.filter(key__startswith="memoryhub:login:account:")
    assert (after.window_start, after.hits) == (before.window_start, 8)
    assert AuditEntry.objects.filter(action="login.locked").count() == 1


def test_twenty_failures_from_one_address_lock_that_address_only(personas):
    for n in range(20):
        response = _login(Browser(), f"guess-{n}", "wrong", address="10.6.6.6")
    assert response.status_code == 429
    assert LOCKED in response.content.decode()

    locked_out = Browser()
    assert _login(locked_out, "advisor", RIGHT, address="10.6.6.6").status_code == 429
    assert _signed_in_as(locked_out) is None
    other_address = Browser()
    assert _login(other_address, "advisor", RIGHT, address="10.0.0.2").status_code == 302

    entry = AuditEntry.objects.get(action="login.locked")
    assert (entry.tenant_id, entry.object_type, entry.object_id) == (None, "address", "10.6.6.6")
    assert entry.data == {"scope": "address", "failures": 20, "address": "10.6.6.6"}

    _cool_off("address")
    assert _login(locked_out, "advisor", RIGHT, address="10.6.6.6").status_code == 302


def test_an_unknown_account_locks_like_a_known_one(personas):
    for _ in range(4):
        assert _login(Browser(), "nobody", "wrong").status_code == 200
    assert _login(Browser(), "nobody", "wrong").status_code == 429
    entry = AuditEntry.objects.get(action="login.locked")
    assert (entry.tenant_id, entry.object_type, entry.object_id) == (None, "user", "unknown")


def test_the_admin_login_is_counted_and_locked_too(personas):
    browser = Browser()
    for _ in range(5):
        response = _login(browser, "admin", "wrong", path="/admin/login/")
    assert LOCKED in response.content.decode()
    right = _login(browser, "admin", RIGHT, path="/admin/login/")
    assert LOCKED in right.content.decode()
    assert browser.get("/admin/").status_code == 302  # still sent to the login page
    assert AuditEntry.objects.get(action="login.locked").object_id == str(personas.admin.pk)
    # one lock for both doors
    assert _login(Browser(), "admin", RIGHT).status_code == 429


def test_the_lockout_settings_apply(personas, settings):
    settings.MEMORYHUB = {"LOGIN_MAX_FAILURES": 2, "LOGIN_LOCKOUT_MINUTES": 60}
    assert _login(Browser(), "supervisor", "wrong").status_code == 200
    second = _login(Browser(), "supervisor", "wrong")
    assert second.status_code == 429
    assert "Too many failed attempts; try again in 60 minutes." in second.content.decode()
    assert second["Retry-After"] == "3600"


def test_the_address_behind_a_trusted_proxy_is_the_one_it_saw(personas, settings):
    settings.MEMORYHUB = {"LOGIN_MAX_FAILURES_PER_ADDRESS": 2, "TRUSTED_PROXIES": 1}
    for n in range(2):  # the client writes its own X-Forwarded-For; the proxy appends
        Browser().post(
            "/login/",
            {"username": f"guess-{n}", "password": "wrong"},
            REMOTE_ADDR="192.168.0.1",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.7",
        )
    entry = AuditEntry.objects.get(action="login.locked")
    assert (entry.object_type, entry.object_id) == ("address", "203.0.113.7")
    other = Browser().post(
        "/login/",
        {"username": "advisor", "password": RIGHT},
        REMOTE_ADDR="192.168.0.1",
        HTTP_X_FORWARDED_FOR="203.0.113.8",
    )
    assert other.status_code == 302


def test_without_trusted_proxies_x_forwarded_for_is_ignored(personas, settings):
    settings.MEMORYHUB = {"LOGIN_MAX_FAILURES_PER_ADDRESS": 2}
    for n in range(2):
        Browser().post(
            "/login/",
            {"username": f"guess-{n}", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}",
        )
    entry = AuditEntry.objects.get(action="login.locked")
    assert (entry.object_type, entry.object_id) == ("address", "127.0.0.1")
