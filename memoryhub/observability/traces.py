"""Traces (OpenTelemetry), off unless an OTLP endpoint is configured.

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) set, every
process exports its spans over OTLP/HTTP: a span per request (a W3C ``traceparent`` from the
caller is its parent), one per memory operation in the GenAI semantic conventions
(``search_memory``, ``create_memory``, ``update_memory``, ``delete_memory``, with
``gen_ai.memory.*`` attributes), and one per django-q2 task, a child of the request that
enqueued it (the context travels in the task package, like the request id).

Query text and memory content go into spans only when the operator opts in
(``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``, the conventions' switch), and
never for an encrypted tenant, whose words stay sealed everywhere. Ids and counts are not
content: a client's store id is its UUID, not its reference.
"""

from __future__ import annotations

import contextvars
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from django.conf import settings
from opentelemetry import context, propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from memoryhub.observability import request_ids

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

SCOPE = "memoryhub"
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
TASK_KEY = "trace_context"
REQUEST_ID = "memoryhub.request_id"

# Where spans go: the provider configure() built, a test's, or else OpenTelemetry's global
# one (a no-op unless something installed another). Got once, not per request.
_tracer: trace.Tracer = trace.get_tracer(SCOPE)


def provider_from_environment(environ: Mapping[str, str]) -> TracerProvider | None:
    """An OTLP/HTTP exporting provider when ``environ`` names an endpoint, else None. The
    exporter reads its own variables (endpoint, headers, timeout); the service is
    ``OTEL_SERVICE_NAME``, ``memoryhub`` by default."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    if not (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    ):
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: environ.get("OTEL_SERVICE_NAME") or SCOPE})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def configure() -> bool:
    """At start: export spans if the environment says where. Returns whether it does."""
    provider = provider_from_environment(os.environ)
    if provider is None:
        return False
    install(provider)
    trace.set_tracer_provider(provider)  # for any library that traces through the global
    return True


def install(provider: trace.TracerProvider | None) -> None:
    """Send memoryhub's spans to ``provider`` (None: back to the global one)."""
    global _tracer
    _tracer = (provider or trace.get_tracer_provider()).get_tracer(SCOPE)


def tracer() -> trace.Tracer:
    return _tracer


def content_allowed(tenant) -> bool:
    """Whether a span may carry this tenant's words (query text, memory content)."""
    return bool(getattr(settings, "MEMORYHUB_TRACE_CONTENT", False)) and not tenant.encrypted


# --- memory operations ---------------------------------------------------------------


@contextmanager
def memory_operation(operation: str, *, store=None, record=None) -> Iterator[Span]:
    """A span for one memory operation (``gen_ai.operation.name``) on a client's memory
    (``store``: the client's id), or on one memory of it (``record``: its id). Errors are
    recorded on it and raised as they were."""
    attributes: dict[str, str] = {"gen_ai.operation.name": operation}
    if store is not None:
        attributes["gen_ai.memory.store.id"] = str(store)
    if record is not None:
        attributes["gen_ai.memory.record.id"] = str(record)
    if rid := request_ids.request_id.get():
        attributes[REQUEST_ID] = rid
    with tracer().start_as_current_span(
        operation, kind=SpanKind.INTERNAL, attributes=attributes
    ) as span:
        yield span


def record_search(span: Span, *, tenant, query: str, k: int, hits: Iterable) -> None:
    """What a search found: how many, and with consent their ids, scores and words."""
    if not span.is_recording():
        return
    hits = list(hits)
    span.set_attribute("gen_ai.request.top_k", k)
    span.set_attribute("gen_ai.memory.record.count", len(hits))
    if content_allowed(tenant):
        span.set_attribute("gen_ai.memory.query.text", query)
        span.set_attribute(
            "gen_ai.memory.records",
            json.dumps(
                [
                    {
                        "id": str(h.memory.pk),
                        "content": h.memory.content,
                        "score": round(h.score, 4),
                    }
                    for h in hits
                ]
            ),
        )


def record_written(
    span: Span, *, tenant, memories: list, stores: set | None = None, events: int | None = None
) -> None:
    """The memories an operation wrote: their count, the id when it is one, and with
    consent their words; for a write of events, how many and the store when it is one."""
    if not span.is_recording():
        return
    if stores is not None and len(stores) == 1:
        span.set_attribute("gen_ai.memory.store.id", str(next(iter(stores))))
    if events is not None:
        span.set_attribute("memoryhub.event.count", events)
    span.set_attribute("gen_ai.memory.record.count", len(memories))
    if len(memories) == 1:
        span.set_attribute("gen_ai.memory.record.id", str(memories[0].pk))
    if memories and content_allowed(tenant):
        span.set_attribute(
            "gen_ai.memory.records",
            json.dumps([{"id": str(m.pk), "content": m.content} for m in memories]),
        )


# --- requests ------------------------------------------------------------------------


class TraceMiddleware:
    """A server span per request, named by its route (not its raw path, which holds ids),
    child of the caller's ``traceparent`` if it sent one; right after the request id's
    middleware, whose id it carries."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        parent = propagate.extract(request.headers)
        with tracer().start_as_current_span(
            request.method,
            context=parent,
            kind=SpanKind.SERVER,
            attributes={"http.request.method": request.method, "url.path": request.path},
        ) as span:
            response = self.get_response(request)
            if span.is_recording():
                route = request_ids.route_of(request)
                span.update_name(f"{request.method} {route}")
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", response.status_code)
                span.set_attribute(REQUEST_ID, getattr(request, "request_id", ""))
                if response.status_code >= 500:
                    span.set_status(Status(StatusCode.ERROR))
            return response


# --- django-q2: the context into the task package, a span around the task ------------

_task_span: contextvars.ContextVar[tuple[Span, object] | None] = contextvars.ContextVar(
    "task_span", default=None
)


def on_enqueue(sender, task, **kwargs) -> None:
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if carrier:
        task[TASK_KEY] = carrier


def on_execute(sender, func, task, **kwargs) -> None:
    carrier = task.get(TASK_KEY)
    parent = propagate.extract(carrier) if isinstance(carrier, dict) else None
    name = task.get("func")
    span = tracer().start_span(
        f"task {name if isinstance(name, str) else getattr(name, '__qualname__', 'task')}",
        context=parent,
        kind=SpanKind.CONSUMER,
        attributes={"memoryhub.task.id": str(task.get("id", ""))},
    )
    token = context.attach(trace.set_span_in_context(span))
    _task_span.set((span, token))


def on_executed(sender, func, task, **kwargs) -> None:
    started = _task_span.get()
    if started is None:
        return
    span, token = started
    _task_span.set(None)
    if not task.get("success", True):
        span.set_status(Status(StatusCode.ERROR, str(task.get("result", ""))[:200]))
    span.end()
    context.detach(token)  # type: ignore[arg-type]


def connect_task_hooks() -> None:
    from django_q import signals

    signals.pre_enqueue.connect(on_enqueue, dispatch_uid="memoryhub-trace-enqueue")
    signals.pre_execute.connect(on_execute, dispatch_uid="memoryhub-trace-execute")
    signals.post_execute_in_worker.connect(on_executed, dispatch_uid="memoryhub-trace-executed")
