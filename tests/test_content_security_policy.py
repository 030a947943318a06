"""Every answer carries the Content-Security-Policy: pages, fragments, decisions, errors,
the admin, the API and its docs, static files; and no template needs an exception to it
(no inline script, handler or style)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from tests.support import factories

pytestmark = pytest.mark.django_db

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


@pytest.fixture
def memory(personas):
    return factories.MemoryFactory.create(client=personas.client, content="Prefers email.")


@pytest.fixture
def item(personas, memory):
    other = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    return factories.ReviewItemFactory.create(memory=other, other_memory=memory)


def test_every_page_and_answer_of_a_supervisor_carries_the_policy(client, personas, memory, item):
    client.force_login(personas.supervisor)
    c = personas.client.pk
    answers = {
        ("GET", url): client.get(url)
        for url in (
            "/",
            "/clients/",
            f"/clients/{c}/",
            f"/clients/{c}/memories/?q=email",
            f"/clients/{c}/timeline/",
            f"/memories/{memory.pk}/",
            "/review/",
            "/review/?type=promotion",
            f"/review/?type=conflict&client={c}&kind=semantic&sort=oldest",
            f"/memories/{memory.pk}/audit/",
            f"/clients/{c}/audit/",
            f"/clients/{c}/context/?message=How+to+reach+her%3F&budget_chars=500",
            f"/clients/{c}/export/",
            "/clients/?sort=conflicts",
            "/me/",
            "/admin/",
            "/admin/memories/memory/",
            f"/admin/memories/memory/{memory.pk}/change/",
            "/api/v1/docs/",
            "/api/v1/docs/?script=",
            "/api/v1/schema/",
            "/api/v1/health/",
            "/static/memoryhub/app.js",
            "/favicon.ico",
            "/no/such/page/",
            "/api/v1/no/such/endpoint/",
        )
    }
    answers |= {
        ("POST", url): client.post(url, data)
        for url, data in (
            (f"/memories/{memory.pk}/tier/", {"tier": "core"}),
            (f"/review/{item.pk}/decide/", {"decision": "keep_both"}),
            ("/review/bulk/", {"type": "conflict"}),
            (f"/clients/{c}/erase/", {"confirm": "not the reference"}),
            (f"/memories/{memory.pk}/correct/", {"content": "Prefers letters.", "reason": "Said."}),
            (f"/memories/{memory.pk}/forget/", {"reason": ""}),  # refused: the page again
            (f"/memories/{memory.pk}/undo/", {"entry": "1"}),  # nothing to undo: the page
        )
    }
    statuses = {key: response.status_code for key, response in answers.items()}
    assert set(statuses.values()) <= {200, 301, 302, 400, 404}, statuses
    assert {key: r.get("Content-Security-Policy") for key, r in answers.items()} == {
        key: POLICY for key in answers
    }


def test_anonymous_and_denied_answers_carry_it_too(client, api_client, personas):
    assert client.get("/login/")["Content-Security-Policy"] == POLICY
    assert client.get("/review/")["Content-Security-Policy"] == POLICY  # to the login
    assert api_client.get("/api/v1/health/")["Content-Security-Policy"] == POLICY
    client.force_login(personas.client_user)
    denied = client.get("/review/")
    assert (denied.status_code, denied["Content-Security-Policy"]) == (403, POLICY)


TEMPLATES = Path(settings.BASE_DIR) / "templates"
INLINE = re.compile(r"<script(?![^>]*\bsrc=)|<style|\son[a-z]+=|\sstyle=", re.I)


def test_no_template_has_inline_script_handler_or_style():
    found = {
        str(path.relative_to(TEMPLATES)): INLINE.findall(path.read_text())
        for path in TEMPLATES.rglob("*.html")
    }
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_admins_object_permissions_page_needs_no_inline_style(client, personas):
    """django-guardian's page adds an empty inline style element, which the policy refuses
    (the browser logs it); the project's copy of its head has none, and the page works."""
    client.force_login(personas.admin)
    url = f"/admin/memories/client/{personas.client.pk}/permissions/"
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert INLINE.findall(html) == []
    assert "Object permissions" in html and 'name="user"' in html
    assert '<script src="/admin/jsi18n/"></script>' in html
