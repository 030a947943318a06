"""Request ids, JSON logs and the Prometheus metrics, through real requests."""

from __future__ import annotations

import json
import logging

import pytest
from django.db import connections
from django_q.brokers import get_broker
from django_q.signals import pre_execute
from prometheus_client import REGISTRY

from memories.services import llm
from memoryhub.observability.logs import JsonFormatter
from memoryhub.observability.request_ids import request_id
from tests.support import factories
from tests.support.fakes import FakeProviderServer

pytestmark = pytest.mark.django_db

TOKEN = "metrics-test-token"


def _sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def supervisor_key(personas):
    return factories.api_key_for(personas.supervisor, personas.tenant)[1]


def _post(api_client, key, path, body, **headers):
    return api_client.post(path, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}", **headers)


# --- request ids ----------------------------------------------------------------------


def test_every_answer_names_its_request(api_client):
    first = api_client.get("/api/v1/health/live")
    second = api_client.get("/api/v1/health/live")
    assert len(first["X-Request-ID"]) == 32
    assert int(first["X-Request-ID"], 16) >= 0
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_a_sane_incoming_id_is_kept(api_client):
    response = api_client.get("/api/v1/health/live", HTTP_X_REQUEST_ID="agent-7:run.42_a")
    assert response["X-Request-ID"] == "agent-7:run.42_a"


@pytest.mark.parametrize("incoming", ["x" * 129, "a b", "id\u00e9", "<script>", ""])
def test_an_insane_incoming_id_is_replaced(api_client, incoming):
    response = api_client.get("/api/v1/health/live", HTTP_X_REQUEST_ID=incoming)
    assert response["X-Request-ID"] != incoming
    assert len(response["X-Request-ID"]) == 32


@pytest.mark.django_db(transaction=True)
def test_the_request_id_goes_into_the_tasks_the_request_enqueues(api_client, supervisor_key):
    """Committed for real: the task is queued when the request's transaction commits."""
    seen: list[tuple[str, str]] = []

    def record(sender, func, task, **kwargs):
        seen.append((task["func"], request_id.get()))

    pre_execute.connect(record)
    try:
        response = _post(
            api_client,
            supervisor_key,
            "/api/v1/events/",
            {"client": "emma", "content": "I prefer to be contacted by email."},
            HTTP_X_REQUEST_ID="req-enqueue-1",
        )
    finally:
        pre_execute.disconnect(record)
    assert response.status_code == 201
    assert seen == [("profiles.tasks.profiles_refresh", "req-enqueue-1")]
    assert request_id.get() == ""


def test_the_access_log_is_one_json_line_with_the_route(api_client, supervisor_key, caplog):
    caplog.set_level(logging.INFO, logger="memoryhub.requests")
    response = _post(
        api_client,
        supervisor_key,
        "/api/v1/search/",
        {"client": "nobody-yet", "query": "email"},
        HTTP_X_REQUEST_ID="req-log-1",
    )
    assert response.status_code == 404
    (record,) = [r for r in caplog.records if r.name == "memoryhub.requests"]
    line = json.loads(JsonFormatter().format(record))
    duration = line.pop("duration_ms")
    assert isinstance(duration, float)
    assert line.pop("time").endswith("+00:00")
    assert line == {
        "level": "INFO",
        "logger": "memoryhub.requests",
        "message": "POST /api/v1/search/ 404",
        "request_id": "req-log-1",
        "method": "POST",
        "path": "/api/v1/search/",
        "route": "/api/v1/search/",
        "status": 404,
    }


# --- metrics --------------------------------------------------------------------------


def test_metrics_are_off_without_a_token(api_client, settings):
    settings.MEMORYHUB_METRICS_TOKEN = ""
    assert api_client.get("/metrics").status_code == 404
    assert api_client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN])
def test_metrics_need_the_token(api_client, settings, header):
    settings.MEMORYHUB_METRICS_TOKEN = TOKEN
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    response = api_client.get("/metrics", **extra)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"memoryhub_" not in response.content


def _scrape(api_client, settings) -> str:
    settings.MEMORYHUB_METRICS_TOKEN = TOKEN
    response = api_client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return response.content.decode()


def test_request_latency_is_counted_by_route_not_by_path(api_client, settings, supervisor_key):
    labels = {"route": "/api/v1/memories/<uuid:memory_id>/", "method": "GET", "status": "404"}
    before = _sample("memoryhub_http_request_duration_seconds_count", **labels)
    for memory_id in (
        "8e2bd5cf-1b4c-4c53-9b46-0b3f4cfb4f0a",
        "0d6f8f7c-84a5-4b4e-8f7a-0d1f3c9f2b11",
    ):
        response = api_client.get(
            f"/api/v1/memories/{memory_id}/", HTTP_AUTHORIZATION=f"Bearer {supervisor_key}"
        )
        assert response.status_code == 404
    assert _sample("memoryhub_http_request_duration_seconds_count", **labels) == before + 2
    text = _scrape(api_client, settings)
    assert 'route="/api/v1/memories/<uuid:memory_id>/"' in text
    assert "8e2bd5cf" not in text


def test_ingest_outcomes_and_embedding_calls_are_counted(
    api_client, supervisor_key, django_capture_on_commit_callbacks
):
    added = _sample("memoryhub_ingest_outcomes_total", action="added")
    deduplicated = _sample("memoryhub_ingest_outcomes_total", action="deduplicated")
    calls = _sample(
        "memoryhub_provider_calls_total", kind="embedding", provider="local", outcome="ok"
    )
    body = {"client": "emma", "content": "I prefer to be contacted by email."}
    with django_capture_on_commit_callbacks(execute=True):
        first = _post(api_client, supervisor_key, "/api/v1/events/", body)
        again = _post(api_client, supervisor_key, "/api/v1/events/", {**body, "session": "call-2"})
    assert [m["action"] for m in first.json()["memories"]] == ["added"]
    assert [m["action"] for m in again.json()["memories"]] == ["deduplicated"]
    assert _sample("memoryhub_ingest_outcomes_total", action="added") == added + 1
    assert _sample("memoryhub_ingest_outcomes_total", action="deduplicated") == deduplicated + 1
    # The second statement is said word for word already: restated, not embedded.
    assert (
        _sample("memoryhub_provider_calls_total", kind="embedding", provider="local", outcome="ok")
        == calls + 1
    )
    assert _sample("memoryhub_breaker_state", kind="embedding", provider="local") == 0


def test_a_refused_ingest_counts_no_outcome(api_client, personas):
    _, heir_key = factories.api_key_for(personas.heir, personas.tenant)
    added = _sample("memoryhub_ingest_outcomes_total", action="added")
    response = _post(
        api_client, heir_key, "/api/v1/events/", {"client": "emma", "content": "I live in Leeds."}
    )
    assert response.status_code in (403, 404)
    assert _sample("memoryhub_ingest_outcomes_total", action="added") == added


def test_llm_calls_and_failures_are_counted_by_provider(settings):
    with FakeProviderServer() as server:
        settings.MEMORYHUB = {"LLM_BASE_URL": server.base_url, "LLM_API_KEY": "k"}
        ok = _sample(
            "memoryhub_provider_calls_total", kind="llm", provider="127.0.0.1", outcome="ok"
        )
        failed = _sample(
            "memoryhub_provider_calls_total", kind="llm", provider="127.0.0.1", outcome="failed"
        )
        schema = {"name": "m", "schema": {"type": "object"}, "strict": True}
        assert llm.llm_json(system="s", user="u", schema=schema) == {"memories": []}
        server.script.append("500")
        with pytest.raises(Exception, match="internal error"):
            llm.llm_json(system="s", user="u", schema=schema)
    labels = {"kind": "llm", "provider": "127.0.0.1"}
    assert _sample("memoryhub_provider_calls_total", **labels, outcome="ok") == ok + 1
    assert _sample("memoryhub_provider_calls_total", **labels, outcome="failed") == failed + 1


def test_tasks_are_timed_by_function_and_outcome(
    api_client, supervisor_key, django_capture_on_commit_callbacks
):
    labels = {"task": "profiles.tasks.profiles_refresh", "outcome": "succeeded"}
    before = _sample("memoryhub_task_duration_seconds_count", **labels)
    with django_capture_on_commit_callbacks(execute=True):
        _post(
            api_client,
            supervisor_key,
            "/api/v1/events/",
            {"client": "emma", "content": "I live in Leeds."},
        )
    assert _sample("memoryhub_task_duration_seconds_count", **labels) == before + 1


def test_queue_depth_is_read_from_the_broker_when_scraped(api_client, settings):
    assert 'memoryhub_queue_depth{broker="orm"} 0.0' in _scrape(api_client, settings)
    get_broker().enqueue("a task package")
    assert 'memoryhub_queue_depth{broker="orm"} 1.0' in _scrape(api_client, settings)


# --- liveness and readiness -----------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/health/live", "/api/v1/health/live/"])
def test_live_answers_without_the_database(api_client, tmp_path, path):
    with _unreachable_database(tmp_path):
        response = api_client.get(path)
    assert (response.status_code, response.json()) == (200, {"status": "live"})


@pytest.mark.parametrize("path", ["/api/v1/health/ready", "/api/v1/health/ready/"])
def test_ready_when_the_database_answers(api_client, path):
    response = api_client.get(path)
    assert (response.status_code, response.json()) == (200, {"status": "ready", "database": "ok"})


def test_not_ready_when_the_database_is_down_and_no_internals_said(api_client, tmp_path, caplog):
    with _unreachable_database(tmp_path):
        response = api_client.get("/api/v1/health/ready", HTTP_X_REQUEST_ID="req-ready-1")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {"status": "unavailable", "database": "unavailable"}
    assert str(tmp_path) not in response.content.decode()
    # The reason goes to the log, with the request's id.
    (record,) = [r for r in caplog.records if r.name == "memories.api.probes"]
    assert record.request_id == "req-ready-1"
    assert str(tmp_path) in JsonFormatter().format(record)


class _unreachable_database:
    """The default connection swapped for one to a socket directory where no server
    listens: every query fails as it does when PostgreSQL is stopped."""

    def __init__(self, socket_dir):
        self.socket_dir = socket_dir

    def __enter__(self):
        self.working = connections["default"]
        self.down = self.working.__class__(
            {**self.working.settings_dict, "HOST": str(self.socket_dir)}, "default"
        )
        connections["default"] = self.down

    def __exit__(self, *exc):
        connections["default"] = self.working
        self.down.close()
