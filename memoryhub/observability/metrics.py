"""Prometheus metrics, at ``/metrics`` for whoever holds ``MEMORYHUB_METRICS_TOKEN``.

The production server runs several web processes beside the django-q2 worker: ``serve``
points them all at one folder (``PROMETHEUS_MULTIPROC_DIR``, prometheus-client's
multi-process mode), and a scrape adds up what every process recorded. Queue depth is read
from the broker when scraped.
"""

from __future__ import annotations

import hmac
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
TOKEN_SETTING = "MEMORYHUB_METRICS_TOKEN"  # noqa: S105 (a setting's name)

REQUEST_LATENCY = Histogram(
    "memoryhub_http_request_duration_seconds",
    "Time to answer a request, by URL route (its pattern, not the raw path), method and status.",
    ["route", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10),
)
INGEST_OUTCOMES = Counter(
    "memoryhub_ingest_outcomes_total",
    "What ingest did with each statement it stored: added, deduplicated, updated, extended, "
    "conflict.",
    ["action"],
)
INGEST_RETRIES = Counter(
    "memoryhub_ingest_retries_total",
    "Ingest calls decided again because their transaction lost a race with another and was "
    "rolled back, by SQLSTATE (40P01 deadlock, 40001 serialization failure, 55P03 lock "
    "timeout).",
    ["sqlstate"],
)
PROVIDER_CALLS = Counter(
    "memoryhub_provider_calls_total",
    "Calls to embedding and LLM providers, by provider and outcome (ok, failed).",
    ["kind", "provider", "outcome"],
)
BREAKER_STATE = Gauge(
    "memoryhub_breaker_state",
    "A provider's circuit as last seen by any process: 0 closed, 1 half open, 2 open.",
    ["kind", "provider"],
    multiprocess_mode="mostrecent",
)
TASK_DURATION = Histogram(
    "memoryhub_task_duration_seconds",
    "Background tasks (jobs and follow-ups), by function and outcome (succeeded, failed).",
    ["task", "outcome"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600),
)
BREAKER_VALUES = {"closed": 0, "half_open": 1, "open": 2}
READS = Counter(
    "memoryhub_reads_total",
    "Read-only requests by the database that served them (primary, replica) and why "
    "(replica; own_write: the replica had not replayed the caller's last write yet; "
    "replica_down, replica_behind, replica_not_standby; replica_failed: run again on the "
    "primary after the replica failed it). Only with MEMORYHUB_REPLICA_URL.",
    ["database", "reason"],
)
REPLICA_UP = Gauge(
    "memoryhub_replica_up",
    "1 when the replica answered and was close enough behind to serve reads when last "
    "asked, else 0.",
    multiprocess_mode="mostrecent",
)
REPLICA_LAG = Gauge(
    "memoryhub_replica_lag_seconds",
    "How far behind the primary the replica was when last asked (0: it had replayed all it "
    "had received).",
    multiprocess_mode="mostrecent",
)


def provider_called(kind: str, provider: str, *, ok: bool, circuit: str) -> None:
    PROVIDER_CALLS.labels(kind=kind, provider=provider, outcome="ok" if ok else "failed").inc()
    BREAKER_STATE.labels(kind=kind, provider=provider).set(BREAKER_VALUES.get(circuit, 0))


def read_routed(database: str, reason: str) -> None:
    READS.labels(database=database, reason=reason).inc()


def replica_observed(status: str, lag_seconds: float | None) -> None:
    REPLICA_UP.set(1 if status == "ok" else 0)
    if lag_seconds is not None:
        REPLICA_LAG.set(lag_seconds)


def ingest_counted(actions) -> None:
    for action in actions:
        INGEST_OUTCOMES.labels(action=action).inc()


def ingest_retried(sqlstate: str) -> None:
    INGEST_RETRIES.labels(sqlstate=sqlstate).inc()


class QueueCollector:
    """Tasks waiting in the django-q2 broker, read when scraped."""

    def collect(self):
        from django_q.brokers import get_broker

        family = GaugeMetricFamily(
            "memoryhub_queue_depth", "Tasks waiting in the django-q2 broker.", labels=["broker"]
        )
        broker = get_broker()
        try:
            depth = broker.queue_size()
        except Exception:  # a broker that cannot be reached has no depth to report
            return
        family.add_metric([type(broker).__name__.lower()], float(depth or 0))
        yield family


def exposition() -> bytes:
    if os.environ.get(MULTIPROCESS_ENV):
        from prometheus_client import multiprocess

        recorded = CollectorRegistry()
        multiprocess.MultiProcessCollector(recorded)
    else:
        from prometheus_client import REGISTRY as recorded
    read_now = CollectorRegistry()
    read_now.register(QueueCollector())
    return generate_latest(recorded) + generate_latest(read_now)


def token_matches(header: str, token: str) -> bool:
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token)


def metrics_view(request):
    """``/metrics``: 404 unless ``MEMORYHUB_METRICS_TOKEN`` is set (nothing to find), 401
    without that token as a bearer token."""
    from django.conf import settings
    from django.http import Http404, HttpResponse

    token = getattr(settings, TOKEN_SETTING, "")
    if not token:
        raise Http404("metrics are off: set MEMORYHUB_METRICS_TOKEN")
    if not token_matches(request.headers.get("Authorization", ""), token):
        response = HttpResponse("A bearer token is needed.\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
