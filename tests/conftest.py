"""Personas: advisor, another advisor of the same tenant, an advisor of another tenant,
supervisor, admin, client and heir, with the clients they relate to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from memories.models import Client, Memory, Role, Tenant
from memories.services.embedding.providers import reset_chain
from memories.services.llm import reset_llm_breaker
from memories.services.tenancy.members import client_assign_advisor
from memories.services.webhooks import endpoints as webhook_endpoints
from tests.support import factories
from tests.support.fakes import FakeProviderServer

# Imported by test modules as well as used as a plugin: its asserts are rewritten either way.
pytest.register_assert_rewrite("tests.support.browser")


@pytest.fixture(autouse=True)
def _fresh_embedding_chain():
    """The chain and the model's breaker are process-wide (breakers must outlive a
    request); tests that change provider settings get ones built from their settings."""
    reset_chain()
    reset_llm_breaker()
    yield
    reset_chain()
    reset_llm_breaker()


@pytest.fixture(autouse=True)
def _webhook_names_resolve_to_nothing(monkeypatch):
    """No test asks DNS: a webhook URL's name resolves to nothing at registration (as a name
    not there yet), unless the test says what it resolves to."""
    monkeypatch.setattr(webhook_endpoints, "name_addresses", lambda host: [])


@pytest.fixture
def fake_provider():
    with FakeProviderServer(timeout_sleep=1.0) as server:
        yield server


@pytest.fixture
def remote_providers(settings, fake_provider):
    """Voyage → OpenAI small → local, the remote ones served by the local fake."""
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage", "openai-small", "local"]
    settings.VOYAGE_API_KEY = settings.OPENAI_API_KEY = "test-key"
    settings.VOYAGE_BASE_URL = settings.OPENAI_BASE_URL = fake_provider.base_url
    settings.MEMORYHUB = {"EMBED_TIMEOUT": 0.5, "BREAKER_COOLDOWN": 0.3}
    reset_chain()
    return fake_provider


@pytest.fixture
def tenant(db):
    return factories.TenantFactory.create(slug="acme", name="Acme Wealth")


@pytest.fixture
def other_tenant(db):
    return factories.TenantFactory.create(slug="globex", name="Globex Private")


def _member(tenant: Tenant, username: str, role: str, **user_fields) -> User:
    user = factories.UserFactory.create(username=username, **user_fields)
    factories.MembershipFactory.create(tenant=tenant, user=user, role=role)
    return user


@dataclass
class Personas:
    tenant: Tenant
    other_tenant: Tenant
    advisor: User
    advisor2: User
    outsider: User
    supervisor: User
    admin: User
    client_user: User
    heir: User
    client: Client  # assigned to advisor, linked to client_user
    parent: Client  # assigned to advisor, the heir's parent
    heir_client: Client
    advisor2_client: Client
    foreign_client: Client


@pytest.fixture
def personas(tenant: Tenant, other_tenant: Tenant) -> Personas:
    advisor = _member(tenant, "advisor", Role.ADVISOR)
    advisor2 = _member(tenant, "advisor2", Role.ADVISOR)
    outsider = _member(other_tenant, "outsider", Role.ADVISOR)
    supervisor = _member(tenant, "supervisor", Role.SUPERVISOR)
    admin = _member(tenant, "admin", Role.ADMIN, is_staff=True, is_superuser=True)
    client_user = _member(tenant, "client", Role.CLIENT)
    heir = _member(tenant, "heir", Role.NEXTGEN_HEIR)

    client = factories.ClientFactory.create(tenant=tenant, external_ref="emma", user=client_user)
    parent = factories.ClientFactory.create(tenant=tenant, external_ref="giulia")
    heir_client = factories.ClientFactory.create(
        tenant=tenant, external_ref="marco", user=heir, family_parent=parent
    )
    advisor2_client = factories.ClientFactory.create(tenant=tenant, external_ref="carlos")
    foreign_client = factories.ClientFactory.create(tenant=other_tenant, external_ref="emma")
    for c in (client, parent, heir_client):
        client_assign_advisor(client=c, advisor=advisor)
    client_assign_advisor(client=advisor2_client, advisor=advisor2)
    client_assign_advisor(client=foreign_client, advisor=outsider)
    return Personas(
        tenant=tenant,
        other_tenant=other_tenant,
        advisor=advisor,
        advisor2=advisor2,
        outsider=outsider,
        supervisor=supervisor,
        admin=admin,
        client_user=client_user,
        heir=heir,
        client=client,
        parent=parent,
        heir_client=heir_client,
        advisor2_client=advisor2_client,
        foreign_client=foreign_client,
    )


@pytest.fixture
def api_client():
    return APIClient()


@pytest.fixture
def agent_key(personas):
    """A raw API key of the advisor persona."""
    _, raw = factories.api_key_for(personas.advisor, personas.tenant)
    return raw


@pytest.fixture
def post_event(api_client, agent_key, django_capture_on_commit_callbacks):
    """Post one event as the advisor's agent (or ``key``); work queued on commit runs, as
    it would in production. Returns the answer's JSON."""

    def _post(content, *, client="emma", key=None, days_ago=None, **body):
        if days_ago is not None:
            body["observed_at"] = (timezone.now() - timedelta(days=days_ago)).isoformat()
        with django_capture_on_commit_callbacks(execute=True):
            response = api_client.post(
                "/api/v1/events/",
                {"client": client, "content": content, **body},
                format="json",
                HTTP_AUTHORIZATION=f"Bearer {key or agent_key}",
            )
        assert response.status_code == 201, response.json()
        return response.json()

    return _post


@pytest.fixture
def said_later(post_event):
    """Post ``old``, then ``new`` a month later, as the client's words: what became of the
    new statement (its action) and of the old memory (its status)."""

    def _said(old: str, new: str) -> tuple[str, str]:
        first = post_event(old, days_ago=30)["memories"][0]
        (second,) = post_event(new)["memories"]
        return second["action"], Memory.objects.get(pk=first["id"]).status

    return _said
