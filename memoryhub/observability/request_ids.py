"""Request ids: one per request, returned in ``X-Request-ID`` (a sane incoming one is kept,
so a proxy's or an agent's id follows the request), written on every log line, and carried
into the django-q2 tasks the request enqueues, whose log lines then carry it too.

The task side rides on django-q2's own hooks (``pre_enqueue``, ``pre_execute``,
``post_execute_in_worker``): the id travels in the task package, which django-q2 signs and
stores like the rest of it. The same hooks time every task for the metrics.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid

from django.conf import settings
from django.urls import Resolver404, resolve

from memoryhub.observability import metrics

HEADER = "X-Request-ID"
# Letters, digits and . _ : - only, at most 128: an id is written into logs and headers.
SANE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
TASK_KEY = "request_id"

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")
access_logger = logging.getLogger("memoryhub.requests")


def incoming_or_new(value: str | None) -> str:
    if value and SANE.fullmatch(value):
        return value
    return uuid.uuid4().hex


def route_of(request) -> str:
    """The request's route pattern (``/api/v1/memories/<uuid:memory_id>/``), not its path."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return "unmatched"
    return "/" + match.route if match.route else match.view_name or "unmatched"


class RequestIdMiddleware:
    """First in the chain: names the request, times it by route (not by raw path, which
    holds ids), and logs one line when it ends."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.access_log = getattr(settings, "MEMORYHUB_ACCESS_LOG", True)

    def __call__(self, request):
        rid = incoming_or_new(request.headers.get(HEADER))
        token = request_id.set(rid)
        request.request_id = rid
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[HEADER] = rid
            elapsed = time.perf_counter() - started
            route = route_of(request)
            metrics.REQUEST_LATENCY.labels(
                route=route, method=request.method, status=str(response.status_code)
            ).observe(elapsed)
            if self.access_log:
                access_logger.info(
                    "%s %s %s",
                    request.method,
                    request.path,
                    response.status_code,
                    extra={
                        "request_id": rid,
                        "method": request.method,
                        "path": request.path,
                        "route": route,
                        "status": response.status_code,
                        "duration_ms": round(elapsed * 1000, 1),
                    },
                )
            return response
        finally:
            request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Gives every record the current request id (empty outside a request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = request_id.get()
        return True


# --- django-q2: the id into the task package, and back out in the worker ---------------

_task_started: contextvars.ContextVar[tuple[float, contextvars.Token | None]] = (
    contextvars.ContextVar("task_started", default=(0.0, None))
)


def on_enqueue(sender, task, **kwargs) -> None:
    if rid := request_id.get():
        task[TASK_KEY] = rid


def on_execute(sender, func, task, **kwargs) -> None:
    rid = task.get(TASK_KEY)
    token = request_id.set(rid) if isinstance(rid, str) and SANE.fullmatch(rid) else None
    _task_started.set((time.perf_counter(), token))


def on_executed(sender, func, task, **kwargs) -> None:
    started, token = _task_started.get()
    if started:
        name = task.get("func")
        metrics.TASK_DURATION.labels(
            task=name if isinstance(name, str) else getattr(name, "__qualname__", "task"),
            outcome="succeeded" if task.get("success", True) else "failed",
        ).observe(time.perf_counter() - started)
    _task_started.set((0.0, None))
    if token is not None:
        request_id.reset(token)


def connect_task_hooks() -> None:
    from django_q import signals

    signals.pre_enqueue.connect(on_enqueue, dispatch_uid="memoryhub-request-id-enqueue")
    signals.pre_execute.connect(on_execute, dispatch_uid="memoryhub-request-id-execute")
    signals.post_execute_in_worker.connect(
        on_executed, dispatch_uid="memoryhub-request-id-executed"
    )
