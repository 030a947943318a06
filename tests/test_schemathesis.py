"""schemathesis against /api/v1/schema/, one operation at a time: generated requests,
valid and invalid, for every operation, sent to the app in-process with a real API key;
every answer must have a documented status, match its documented schema and never be a
5xx. Valid requests must be accepted and invalid ones refused (schemathesis' default
checks, none switched off). Calls chained by the schema's links:
tests/test_schemathesis_stateful.py."""

import pytest
from hypothesis import HealthCheck, Phase, settings

from tests.support.api_fuzzing import in_process_app, running, schema, seed, small_limits

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 20  # per operation: the whole run stays well under a minute


@pytest.fixture
def supervisor_key(tenant, settings):
    """A supervisor's key in a tenant with a client that has memories and a review item
    (set before the test runs: schemathesis adds it to each case as it generates it)."""
    small_limits(settings)
    with in_process_app(), running(seed(tenant), "supervisor") as key:
        yield key


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI is reproducible
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
def test_the_api_keeps_its_schema(case, supervisor_key):
    # The explicit cases (the schema's examples, schemathesis' coverage cases) are made at
    # collection, before any key exists: the key goes with the call as well.
    case.call_and_validate(headers={"Authorization": f"Bearer {supervisor_key}"})
