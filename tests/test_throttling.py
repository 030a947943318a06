"""Rate limits per API key: separate read and write budgets, 429 in the error format with
Retry-After, counted in one statement into an unlogged table."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.models import Event, RateWindow
from tests.support import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    def _set(read="3/minute", write="2/minute"):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"read": read, "write": write},
        }

    return _set


def _get(api_client, key, url="/api/v1/tools/"):
    return api_client.get(url, HTTP_AUTHORIZATION=f"Bearer {key}")


def _event(api_client, key, n):
    return api_client.post(
        "/api/v1/events/",
        {"client": "emma", "content": f"Note number {n}.", "external_id": f"n-{n}"},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )


def test_the_read_budget_runs_out_with_a_429_in_the_error_format(api_client, agent_key, rates):
    rates(read="3/minute")
    assert [_get(api_client, agent_key).status_code for _ in range(3)] == [200, 200, 200]
    response = _get(api_client, agent_key)
    assert response.status_code == 429
    # Within two windows: the refused request counts too, and carries into the next one.
    assert 1 <= int(response["Retry-After"]) <= 120
    error = response.json()["error"]
    assert error["code"] == "throttled"
    assert error["message"].startswith(
        "Too many requests for this API key: the limit is 3 read requests per minute."
    )
    assert error["fields"] == {}


def test_writes_have_their_own_budget_and_a_refused_write_stores_nothing(
    api_client, agent_key, rates
):
    rates(read="100/minute", write="2/minute")
    assert [_event(api_client, agent_key, n).status_code for n in range(2)] == [201, 201]
    before = Event.objects.count()
    refused = _event(api_client, agent_key, 2)
    assert refused.status_code == 429
    assert "2 write requests per minute" in refused.json()["error"]["message"]
    assert Event.objects.count() == before
    # Reads still go through: the budgets are separate.
    assert _get(api_client, agent_key).status_code == 200


def test_search_and_context_spend_the_read_budget(api_client, agent_key, rates, personas):
    rates(read="2/minute", write="1/minute")
    body = {"client": "emma", "query": "email"}
    auth = {"HTTP_AUTHORIZATION": f"Bearer {agent_key}", "format": "json"}
    assert api_client.post("/api/v1/search/", body, **auth).status_code == 200
    context = {"client": "emma", "message": "email"}
    assert api_client.post("/api/v1/context/", context, **auth).status_code == 200
    assert api_client.post("/api/v1/search/", body, **auth).status_code == 429
    # The write budget is untouched.
    assert _event(api_client, agent_key, 1).status_code == 201


def test_each_key_has_its_own_budget(api_client, personas, rates):
    rates(read="1/minute")
    _, first = factories.api_key_for(personas.advisor, personas.tenant)
    _, second = factories.api_key_for(personas.advisor, personas.tenant)
    assert _get(api_client, first).status_code == 200
    assert _get(api_client, first).status_code == 429
    assert _get(api_client, second).status_code == 200


def test_a_browser_session_is_limited_by_its_user(client, personas, rates):
    rates(read="1/minute")
    client.force_login(personas.advisor)
    assert client.get("/api/v1/tools/").status_code == 200
    assert client.get("/api/v1/tools/").status_code == 429


def test_anonymous_health_probes_are_limited_by_address(api_client, rates):
    rates(read="2/minute")
    statuses = [api_client.get("/api/v1/health/").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    other = api_client.get("/api/v1/health/", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 200


def test_off_lifts_a_limit(api_client, agent_key, rates):
    rates(read="off")
    assert {_get(api_client, agent_key).status_code for _ in range(5)} == {200}


def test_default_rates_come_from_settings(settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert rates == {"read": "600/minute", "write": "300/minute"}


def test_a_request_is_counted_in_one_statement(api_client, agent_key, rates):
    rates(read="5/minute")
    _get(api_client, agent_key)  # the key's first use records itself
    with CaptureQueriesContext(connection) as ctx:
        _get(api_client, agent_key)
    counted = [q["sql"] for q in ctx.captured_queries if "ratewindow" in q["sql"]]
    assert len(counted) == 1
    prefix = agent_key.split("_")[1]
    window = RateWindow.objects.get(key=f"memoryhub:throttle:read:key:{prefix}")
    assert (window.hits, window.previous_hits) == (2, 0)


def test_the_counts_table_writes_no_wal(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT relpersistence FROM pg_class WHERE relname = 'memories_ratewindow'")
        assert cursor.fetchone() == ("u",)


def test_the_last_window_still_counts_after_a_boundary(api_client, agent_key, rates):
    """A sliding window: three reads late in one minute still count early in the next."""
    rates(read="3/minute")
    with time_machine.travel(datetime(2026, 11, 30, 12, 0, 59, tzinfo=UTC), tick=False):
        assert [_get(api_client, agent_key).status_code for _ in range(3)] == [200] * 3
    with time_machine.travel(datetime(2026, 11, 30, 12, 1, 5, tzinfo=UTC), tick=False):
        assert _get(api_client, agent_key).status_code == 429  # 3 × 55/60 + 1 > 3
    with time_machine.travel(datetime(2026, 11, 30, 12, 1, 50, tzinfo=UTC), tick=False):
        assert _get(api_client, agent_key).status_code == 200  # 3 × 10/60 + 2 ≤ 3


@pytest.mark.parametrize(
    ("rate", "sent_at", "expected_wait"),
    [
        # 1/minute, refused at 12:00:20: this window's two hits carry into the next one, so
        # the next request passes only once they have faded to nothing (12:02:00).
        ("1/minute", 20, 100),
        # 3/minute, refused at 12:00:20 with four hits: 4 × (1 - x) + 1 ≤ 3 needs half of
        # the next window gone (12:01:30).
        ("3/minute", 20, 70),
    ],
)
def test_retry_after_is_when_the_next_request_passes(
    api_client, agent_key, rates, rate, sent_at, expected_wait
):
    """A client that waits exactly Retry-After gets through; a moment earlier it would
    not (refused requests count, so the end of the window is not enough)."""
    rates(read=rate)
    limit = int(rate.split("/")[0])
    start = datetime(2026, 11, 30, 12, 0, sent_at, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        assert [_get(api_client, agent_key).status_code for _ in range(limit)] == [200] * limit
        refused = _get(api_client, agent_key)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == expected_wait
    with time_machine.travel(start + timedelta(seconds=expected_wait - 1), tick=False):
        assert _get(api_client, agent_key).status_code == 429
    # The early try above counted too: it is the start of a new wait.
    with time_machine.travel(start + timedelta(seconds=2 * expected_wait + 60), tick=False):
        assert _get(api_client, agent_key).status_code == 200


def test_waiting_retry_after_after_a_refusal_passes(api_client, agent_key, rates):
    rates(read="2/minute")
    start = datetime(2026, 11, 30, 12, 0, 50, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        assert [_get(api_client, agent_key).status_code for _ in range(3)] == [200, 200, 429]
        wait = int(_get(api_client, agent_key)["Retry-After"])
    with time_machine.travel(start + timedelta(seconds=wait), tick=False):
        assert _get(api_client, agent_key).status_code == 200
