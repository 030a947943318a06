"""schemathesis' stateful run: sequences of calls chained by the schema's OpenAPI links
(memories/api/links.py), so that what one call creates is what the next one reads or
changes: an event's memories are read, given feedback, forgotten and their history
listed; the seeded client is exported, its review item decided and the client erased.
Each role's key runs its own sequences (an agent, a supervisor, an admin, the client's
own login, an heir's and a prospect's),
every scenario from the same seeded data (a savepoint rolled back after each), with
schemathesis' default checks on every answer: no 5xx, documented statuses, bodies as
documented, valid requests accepted and invalid ones refused, the key enforced
(use_after_free excepted for forgotten memories: tests/support/api_fuzzing.py)."""

from collections import defaultdict

import pytest
from django.db import transaction
from hypothesis import HealthCheck, Phase, settings
from schemathesis.specs.openapi import stateful
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.support.api_fuzzing import (
    filter_body,
    in_process_app,
    running,
    schema,
    seed,
    small_limits,
)

pytestmark = pytest.mark.django_db

# Scenarios per role (each at most STEPS calls): the supervisor may do everything, so it
# has the most to explore. The whole file takes about a minute of CPU.
SCENARIOS = {
    "advisor": 12,
    "supervisor": 20,
    "admin": 8,
    "client": 12,
    "nextgen_heir": 6,
    "prospect": 6,
}
STEPS = 8

# What each role must have done at least once (a 2xx), so that the run cannot pass by
# reaching nothing: the calls scenarios start from, and, for the agent and the
# supervisor, several of the calls only a link leads to (which ones varies: the ids a
# link carries are the app's own, new on every run).
STARTS = {
    "advisor": {"events_create", "search"},
    "supervisor": {"events_create", "search"},
    "admin": {"events_create", "search"},
    "client": {"search", "memories_list"},
    # The read-only logins of others than the seeded client: what they may read of their
    # own record is the client's tests' matter; here, that nothing they send makes a 5xx
    # or a write.
    "nextgen_heir": set(),
    "prospect": set(),
}
LINKED = {
    "memory_retrieve",
    "memory_history",
    "memory_feedback",
    "memory_forget",
    "client_export",
    "client_profile",
    "client_erase",
    "review_retrieve",
    "review_decide",
    "webhooks_delete",
}
LINKED_AT_LEAST = {
    "advisor": 2,
    "supervisor": 3,
    "admin": 1,
    "client": 0,
    "nextgen_heir": 0,
    "prospect": 0,
}
READ_ONLY = {"client", "nextgen_heir", "prospect"}
# And what a read-only login must never have done.
WRITES = {
    "events_create",
    "events_batch",
    "memory_feedback",
    "memory_forget",
    "review_decide",
    "client_import",
    "client_erase",
    "client_put",
    "client_advisors_set",
}


# The operations that chain: health, its probes and the tool list take nothing from an
# answer and give nothing to a next call (tests/test_schemathesis.py sends them alone).
CHAINED = schema.exclude(operation_id=["health", "health_live", "health_ready", "tools"])


@pytest.fixture
def events_start_scenarios(monkeypatch):
    """schemathesis starts scenarios with the operations it guesses will succeed: POSTs,
    and GETs of collections, unless a body field looks like a reference to a resource
    nothing produces. An event's ``project_id``, ``task_id`` and ``run_id`` are the
    caller's labels, not references, but read as such they would keep events (and so
    everything linked from them) from ever starting a scenario. The guess without that
    part: the operation's method and path alone."""
    guess = stateful.is_likely_root_transition
    monkeypatch.setattr(
        stateful,
        "is_likely_root_transition",
        lambda operation, node, produced: guess(operation, None, produced),
    )


@pytest.fixture
def seeded(tenant, settings, events_start_scenarios):
    small_limits(settings)
    with in_process_app():
        yield seed(tenant)


def _machine(answers: dict[str, set[int]]):
    class Machine(CHAINED.as_state_machine()):  # type: ignore[misc]
        def setup(self):
            self._scenario = transaction.atomic()
            self._scenario.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self._scenario.__exit__(None, None, None)

        def after_call(self, response, case):
            super().after_call(response, case)
            answers[case.operation.definition.raw["operationId"]].add(response.status_code)

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            # A body made from a link (an export sent back to the import) with generated
            # parts may break a rule the operation states in words (evidence pointing to
            # an event the document lacks): refused as it should be, so not held to "a
            # valid request is accepted"; every other check still runs.
            excluded = [] if filter_body(None, case.body) else [positive_data_acceptance]
            case.validate_response(
                response,
                additional_checks=additional_checks,
                excluded_checks=excluded,
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    return Machine


@pytest.mark.parametrize("role", sorted(SCENARIOS))
def test_chained_calls_keep_the_schema(seeded, role):
    answers: dict[str, set[int]] = defaultdict(set)
    with running(seeded, role):
        _machine(answers).run(
            settings=settings(
                max_examples=SCENARIOS[role],
                stateful_step_count=STEPS,
                deadline=None,
                derandomize=True,  # the same scenarios on every run: CI is reproducible
                database=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.generate],
            )
        )
    succeeded = {op for op, statuses in answers.items() if any(200 <= s < 300 for s in statuses)}
    assert STARTS[role] <= succeeded, dict(answers)
    assert len(LINKED & succeeded) >= LINKED_AT_LEAST[role], dict(answers)
    if role in READ_ONLY:
        assert succeeded & WRITES == set(), dict(answers)
