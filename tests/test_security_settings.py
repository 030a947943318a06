"""Secure settings: cookies and headers when deployed (DATABASE_URL set, debug off), a
secret key that comes from the environment there and is never in the repository, and
CSRF on every page and on the API for browser sessions."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from memories.models import Event

BASE = Path(__file__).resolve().parent.parent
SHOWN = [
    "DEBUG",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "CSRF_COOKIE_SAMESITE",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "X_FRAME_OPTIONS",
    "SECURE_REFERRER_POLICY",
]


def _settings_with(tmp_path, **env) -> dict:
    """memoryhub.settings imported in a fresh process with ``env`` (DATABASE_URL is set,
    so no embedded database starts; nothing connects on import)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_")}
    clean.update(
        {"MEMORYHUB_DATA_DIR": str(tmp_path), "DATABASE_URL": "postgres://u:p@127.0.0.1:9/x"}
    )
    clean.update(env)
    code = (
        "import json, memoryhub.settings as s; "
        f"print(json.dumps({{n: getattr(s, n, None) for n in {SHOWN!r}}}))"
    )
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=BASE, env=clean, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout)


def test_deployed_settings_are_secure(tmp_path):
    shown = _settings_with(tmp_path, MEMORYHUB_SECRET_KEY="k" * 50)
    assert shown == {
        "DEBUG": False,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "CSRF_COOKIE_SAMESITE": "Lax",
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "X_FRAME_OPTIONS": "DENY",
        "SECURE_REFERRER_POLICY": "same-origin",
    }
    assert not (tmp_path / "secret_key").exists()


def test_a_deployment_without_a_secret_key_refuses_to_start(tmp_path):
    with pytest.raises(RuntimeError, match="Set MEMORYHUB_SECRET_KEY"):
        _settings_with(tmp_path)


def test_https_can_be_switched_off_explicitly(tmp_path):
    shown = _settings_with(tmp_path, MEMORYHUB_SECRET_KEY="k" * 50, MEMORYHUB_HTTPS="false")
    assert shown["SESSION_COOKIE_SECURE"] is None  # Django's default, False
    assert shown["SECURE_SSL_REDIRECT"] is None
    assert shown["SESSION_COOKIE_HTTPONLY"] is True
    assert shown["X_FRAME_OPTIONS"] == "DENY"


def test_debug_makes_its_own_key_in_the_data_folder(tmp_path):
    shown = _settings_with(tmp_path, MEMORYHUB_DEBUG="true")
    assert shown["DEBUG"] is True
    assert shown["SESSION_COOKIE_SECURE"] is None
    key = tmp_path / "secret_key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert len(key.read_text()) >= 50


SKIPPED = {".venv", ".data", ".git", "__pycache__", ".pytest_cache", ".ruff_cache"}


def test_no_secret_key_in_the_repository():
    """The key this run uses (generated into the git-ignored data folder) appears in no
    source file."""
    assert ".data/" in (BASE / ".gitignore").read_text().split()
    for path in BASE.rglob("*"):
        if SKIPPED & set(path.relative_to(BASE).parts) or not path.is_file():
            continue
        if path.suffix in {".py", ".md", ".toml", ".txt", ".html", ".cfg", ".yaml", ".env"}:
            assert django_settings.SECRET_KEY not in path.read_text(errors="ignore"), path


# --- pages and browser sessions ---


@pytest.mark.django_db
def test_pages_send_the_security_headers(client, personas):
    client.force_login(personas.advisor)
    response = client.get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


@pytest.mark.django_db
def test_login_sets_an_http_only_same_site_session_cookie_and_a_new_session(personas):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.get("/login/")
    token = browser.cookies["csrftoken"].value
    response = browser.post(
        "/login/",
        {"username": "advisor", "password": "pw-for-tests", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    cookie = response.cookies["sessionid"]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
    first = cookie.value
    browser.post("/logout/", {"csrfmiddlewaretoken": browser.cookies["csrftoken"].value})
    browser.get("/login/")
    again = browser.post(
        "/login/",
        {
            "username": "advisor",
            "password": "pw-for-tests",
            "csrfmiddlewaretoken": browser.cookies["csrftoken"].value,
        },
    )
    assert again.cookies["sessionid"].value != first


@pytest.mark.django_db
def test_logout_is_post_only(client, personas):
    client.force_login(personas.advisor)
    assert client.get("/logout/").status_code == 405


@pytest.mark.django_db
def test_the_api_checks_csrf_for_a_browser_session(personas):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(personas.advisor)
    body = json.dumps({"client": "emma", "content": "I prefer email."})
    refused = browser.post("/api/v1/events/", body, content_type="application/json")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"].startswith("CSRF Failed")
    assert Event.objects.count() == 0

    browser.get("/login/")
    accepted = browser.post(
        "/api/v1/events/",
        body,
        content_type="application/json",
        HTTP_X_CSRFTOKEN=browser.cookies["csrftoken"].value,
    )
    assert accepted.status_code == 201
    # An API key needs no CSRF token: it is not sent by a browser on its own.


def test_the_local_run_is_not_deployed():
    """The test suite runs like `make run`: embedded database, debug off, plain HTTP."""
    if os.environ.get("DATABASE_URL"):
        pytest.skip("the suite runs against DATABASE_URL here, not the embedded database")
    assert django_settings.DEBUG is False
    assert django_settings.EMBEDDED_DATABASE is True
    assert django_settings.SESSION_COOKIE_SECURE is False
