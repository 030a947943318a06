"""The admin never opens an encrypted tenant's sealed fields."""

from __future__ import annotations

import pytest
from django.test import Client as PageClient

from memories.admin import SEALED_PLACEHOLDER
from memories.models import Event, Memory, Role
from memories.services.tenancy.encryption import tenant_create
from tests.support import factories
from tests.support.encryption import CORPUS, ingest_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_browser():
    user = factories.UserFactory.create(username="root", is_staff=True, is_superuser=True)
    browser = PageClient()
    browser.force_login(user)
    return browser


def _ingest(encrypted: bool):
    tenant = tenant_create(slug="vault" if encrypted else "plain", encrypted=encrypted)
    user = factories.UserFactory.create(username=f"sv-{tenant.slug}")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    ingest_corpus(user=user, tenant=tenant, corpus=CORPUS[:3])
    return tenant


@pytest.mark.parametrize("path", ["/admin/memories/memory/", "/admin/memories/event/"])
def test_lists_show_a_placeholder_for_sealed_rows(admin_browser, path):
    _ingest(encrypted=True)
    page = admin_browser.get(path)
    assert page.status_code == 200
    text = page.content.decode()
    assert SEALED_PLACEHOLDER in text
    assert "Beatrix" not in text and "Thursdays" not in text


def test_lists_show_plaintext_tenants_as_before(admin_browser):
    _ingest(encrypted=False)
    assert "Beatrix" in admin_browser.get("/admin/memories/memory/").content.decode()


def test_a_sealed_rows_page_leaves_the_sealed_fields_out(admin_browser):
    tenant = _ingest(encrypted=True)
    memory = Memory.objects.filter(tenant=tenant).first()
    event = Event.objects.filter(tenant=tenant).first()
    assert memory is not None and event is not None
    for path in (
        f"/admin/memories/memory/{memory.pk}/change/",
        f"/admin/memories/event/{event.pk}/change/",
    ):
        page = admin_browser.get(path)
        assert page.status_code == 200, path
        text = page.content.decode()
        assert "Beatrix" not in text and "Thursdays" not in text and "mh1:" not in text


def test_the_admin_creates_an_encrypted_tenant_only_with_a_master_key(admin_browser, settings):
    settings.MEMORYHUB_MASTER_KEY = ""
    data = {
        "slug": "sealed",
        "name": "Sealed",
        "language": "english",
        "encrypted": "on",
        "vector_search_enabled": "on",
        "conflict_policy": "superior_evidence",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    page = admin_browser.post("/admin/memories/tenant/add/", data)
    assert page.status_code == 200
    assert "MEMORYHUB_MASTER_KEY is not set" in page.content.decode()
