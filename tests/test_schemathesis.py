"""schemathesis against /api/v1/schema/: generated requests, valid and invalid, for every
operation, sent to the app in-process with a real API key; every answer must have a
documented status, match its documented schema and never be a 5xx. Valid requests must
be accepted and invalid ones refused (schemathesis' default checks, none switched off)."""

import json
from datetime import UTC, datetime

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings

from memories.models import Role, Tier
from memories.serializers import MAX_METADATA_BYTES
from tests import factories

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 20  # per operation: the whole run stays well under a minute

# PostgreSQL text cannot hold NUL, so the API refuses it anywhere (tests/
# test_events_bad_input.py proves it); JSON Schema cannot say "no NUL" of a free-form
# object such as metadata, so the generator is told instead.
CONFIG = schemathesis.Config()
CONFIG.projects.default.generation.update(allow_x00=False)

# Loaded at collection (the schema needs no database); schemathesis.pytest.from_fixture
# would load it per test, but does not work with pytest 9.
schema = schemathesis.openapi.from_wsgi(
    "/api/v1/schema/?format=json", get_wsgi_application(), config=CONFIG
)


def _moment(value):
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _keeps_documented_rules(body) -> bool:
    """The rules the schema states in words, between fields, items or the clock, which
    JSON Schema cannot express: ``since`` not after ``until``; ``observed_at`` not in the
    future; a batch does not repeat an external_id for a client; metadata ≤ 16 KB."""
    if not isinstance(body, dict):
        return True
    filters = body.get("filters")
    if isinstance(filters, dict):
        since, until = _moment(filters.get("since")), _moment(filters.get("until"))
        if since and until and since > until:
            return False
    events = body["events"] if isinstance(body.get("events"), list) else [body]
    seen = set()
    for event in events:
        if not isinstance(event, dict):
            continue
        observed = _moment(event.get("observed_at"))
        if observed and observed > datetime.now(UTC):
            return False
        if len(json.dumps(event.get("metadata") or {})) > MAX_METADATA_BYTES:
            return False
        key = (event.get("client"), event.get("external_id"))
        if all(isinstance(part, str) for part in key) and key[1]:
            if key in seen:
                return False
            seen.add(key)
    return True


@schema.hook
def filter_body(context, body):
    return _keeps_documented_rules(body)


@pytest.fixture
def in_process_app(db):
    """The app runs in-process, inside the test's transaction: like Django's test client,
    keep a finished request from closing the test's database connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def seeded_key(tenant):
    """A supervisor's key in a tenant with a client that has memories, as an agent has."""
    user = factories.UserFactory(username="agent")
    factories.MembershipFactory(tenant=tenant, user=user, role=Role.SUPERVISOR)
    client = factories.ClientFactory(tenant=tenant, external_ref="emma-clarke")
    factories.MemoryFactory(client=client, tier=Tier.CORE, content="Prefers email.")
    factories.MemoryFactory(client=client, content="Plans to sell the flat in Bath.")
    _, raw = factories.api_key_for(user, tenant)
    return raw


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI is reproducible
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
def test_the_api_keeps_its_schema(case, seeded_key, in_process_app):
    case.call_and_validate(headers={"Authorization": f"Bearer {seeded_key}"})
