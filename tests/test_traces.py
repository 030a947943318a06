"""Traces: a span per request, per memory operation (GenAI conventions) and per task, the
request id on them, words only on the operator's opt-in and never an encrypted tenant's;
and spans reaching a real OTLP/HTTP receiver when the environment names one."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from memories.models import Memory, Role
from memories.services.retrieval import memories_search
from memories.services.tenancy.encryption import tenant_create
from memories.services.write.corrections import memory_correct
from memoryhub.observability import traces
from tests.support import factories
from tests.support.encryption import ingest_corpus

pytestmark = pytest.mark.django_db

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


@pytest.fixture
def spans():
    """memoryhub's spans, kept in memory for the test."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    traces.install(provider)
    yield exporter
    traces.install(None)
    provider.shutdown()


def named(exporter, name: str) -> list:
    return [span for span in exporter.get_finished_spans() if span.name == name]


@pytest.fixture
def supervisor_key(personas):
    return factories.api_key_for(personas.supervisor, personas.tenant)[1]


def _post(api_client, key, path, body, **headers):
    return api_client.post(path, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}", **headers)


def test_a_search_is_a_request_span_with_a_search_memory_span_inside(
    api_client, agent_key, personas, post_event, spans
):
    post_event("I prefer to be contacted by email.")
    spans.clear()
    response = _post(
        api_client,
        agent_key,
        "/api/v1/search/",
        {"client": "emma", "query": "how to contact her", "k": 3},
        HTTP_X_REQUEST_ID="req-trace-1",
        HTTP_TRACEPARENT=PARENT,
    )
    assert response.status_code == 200
    (request,) = named(spans, "POST /api/v1/search/")
    (search,) = named(spans, "search_memory")
    # The caller's trace goes on; the search is the request's child.
    assert f"{request.context.trace_id:032x}" == TRACE_ID
    assert search.parent.span_id == request.context.span_id
    assert request.kind == SpanKind.SERVER
    assert request.attributes["http.route"] == "/api/v1/search/"
    assert request.attributes["http.response.status_code"] == 200
    assert request.attributes["memoryhub.request_id"] == "req-trace-1"
    attributes = dict(search.attributes)
    assert attributes == {
        "gen_ai.operation.name": "search_memory",
        "gen_ai.memory.store.id": str(personas.client.pk),
        "memoryhub.request_id": "req-trace-1",
        "gen_ai.request.top_k": 3,
        "gen_ai.memory.record.count": len(response.json()["results"]),
    }
    assert attributes["gen_ai.memory.record.count"] >= 1  # no words without the opt-in


def test_words_go_into_spans_only_on_the_opt_in(api_client, agent_key, post_event, spans, settings):
    post_event("I prefer to be contacted by email.")
    settings.MEMORYHUB_TRACE_CONTENT = True
    spans.clear()
    results = _post(
        api_client, agent_key, "/api/v1/search/", {"client": "emma", "query": "contact email"}
    ).json()["results"]
    (search,) = named(spans, "search_memory")
    assert search.attributes["gen_ai.memory.query.text"] == "contact email"
    records = json.loads(search.attributes["gen_ai.memory.records"])
    assert [r["id"] for r in records] == [r["id"] for r in results]
    assert records[0]["content"] == results[0]["content"]


def test_an_encrypted_tenants_words_never_go_into_spans(spans, settings):
    settings.MEMORYHUB_TRACE_CONTENT = True
    vault = tenant_create(slug="vault", name="Vault", encrypted=True)
    user = factories.UserFactory.create(username="keeper")
    factories.MembershipFactory.create(tenant=vault, user=user, role=Role.SUPERVISOR)
    said = "I prefer to be called by phone on Tuesdays."
    (result,) = ingest_corpus(user=user, tenant=vault, corpus=[said])
    hits = memories_search(client=result.event.client, query="phone Tuesdays", k=5)
    assert hits
    (created,) = named(spans, "create_memory")
    (search,) = named(spans, "search_memory")
    assert created.attributes["gen_ai.memory.record.count"] == len(result.outcomes)
    assert search.attributes["gen_ai.memory.record.count"] == len(hits)
    for span in spans.get_finished_spans():
        assert "gen_ai.memory.query.text" not in span.attributes
        assert "gen_ai.memory.records" not in span.attributes
        assert not any("Tuesday" in str(value) for value in span.attributes.values())


@pytest.mark.django_db(transaction=True)
def test_an_event_is_a_create_memory_span_and_its_task_a_child_of_the_request(
    api_client, agent_key, personas, spans
):
    """Committed for real: the task is queued when the request's transaction commits."""
    response = _post(
        api_client, agent_key, "/api/v1/events/", {"client": "emma", "content": "I prefer email."}
    )
    assert response.status_code == 201
    answer = response.json()
    (created,) = named(spans, "create_memory")
    (request,) = named(spans, "POST /api/v1/events/")
    (task,) = named(spans, "task profiles.tasks.profiles_refresh")
    assert created.parent.span_id == request.context.span_id
    assert dict(created.attributes) == {
        "gen_ai.operation.name": "create_memory",
        "memoryhub.request_id": request.attributes["memoryhub.request_id"],
        "gen_ai.memory.store.id": str(personas.client.pk),
        "memoryhub.event.count": 1,
        "gen_ai.memory.record.count": 1,
        "gen_ai.memory.record.id": answer["memories"][0]["id"],
    }
    # Queued on commit, run by django-q2: the context travelled in the task package.
    assert task.kind == SpanKind.CONSUMER
    assert task.context.trace_id == request.context.trace_id
    assert task.parent.span_id == created.context.span_id  # it was queued as the write committed


def test_a_correction_and_a_forget_are_update_and_delete_spans(
    api_client, agent_key, personas, post_event, spans
):
    (said,) = post_event("I prefer to be contacted by email.")["memories"]
    new_id = str(
        memory_correct(
            memory=Memory.objects.get(pk=said["id"]),
            content="Prefers to be contacted by phone.",
            reason="She said so on the call.",
            actor=personas.advisor,
        ).pk
    )
    forgotten = api_client.delete(
        f"/api/v1/memories/{new_id}/", HTTP_AUTHORIZATION=f"Bearer {agent_key}"
    )
    assert forgotten.status_code in (200, 204)
    (update,) = named(spans, "update_memory")
    (delete,) = named(spans, "delete_memory")
    store = str(personas.client.pk)
    assert update.attributes["gen_ai.memory.store.id"] == store
    assert update.attributes["gen_ai.memory.record.id"] == said["id"]
    assert update.attributes["memoryhub.memory.superseded_by"] == new_id
    assert delete.attributes["gen_ai.memory.store.id"] == store
    assert delete.attributes["gen_ai.memory.record.id"] == new_id
    assert Memory.objects.get(pk=new_id).status == "deleted"


def test_an_erasure_is_a_delete_span_counting_what_went(
    api_client, supervisor_key, personas, post_event, spans
):
    post_event("I prefer to be contacted by email.")
    post_event("My daughter Sofia starts university in Bologna next year.")
    held = Memory.objects.filter(client=personas.client).count()
    response = api_client.delete(
        "/api/v1/clients/emma/", HTTP_AUTHORIZATION=f"Bearer {supervisor_key}"
    )
    assert response.status_code in (200, 204)
    (erased,) = named(spans, "delete_memory")
    assert erased.attributes["gen_ai.memory.store.id"] == str(personas.client.pk)
    assert erased.attributes["gen_ai.memory.record.count"] == held


def test_without_an_endpoint_nothing_is_exported():
    assert traces.provider_from_environment({}) is None
    assert traces.provider_from_environment({"OTEL_SERVICE_NAME": "x"}) is None
    disabled = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}
    assert traces.provider_from_environment(disabled) is None


class _Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: takes protobuf export requests at /v1/traces."""

    received: list[tuple[str, ExportTraceServiceRequest]] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.received.append((self.path, request))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    _Receiver.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Receiver.received
    server.shutdown()


def test_spans_reach_an_otlp_receiver_named_by_the_environment(
    api_client, agent_key, post_event, receiver, monkeypatch
):
    endpoint, received = receiver
    environ = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SERVICE_NAME": "memoryhub-test"}
    # The exporter reads its endpoint from the environment, as it would in production.
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    provider = traces.provider_from_environment(environ)
    assert provider is not None
    traces.install(provider)
    try:
        post_event("I prefer to be contacted by email.")
        _post(api_client, agent_key, "/api/v1/search/", {"client": "emma", "query": "email"})
        assert provider.force_flush(10_000)
    finally:
        traces.install(None)
        provider.shutdown()
    assert {path for path, _ in received} == {"/v1/traces"}
    names, services = set(), set()
    for _, request in received:
        for resource_spans in request.resource_spans:
            for attribute in resource_spans.resource.attributes:
                if attribute.key == "service.name":
                    services.add(attribute.value.string_value)
            for scope_spans in resource_spans.scope_spans:
                names |= {span.name for span in scope_spans.spans}
    assert services == {"memoryhub-test"}
    assert {"create_memory", "search_memory", "POST /api/v1/search/"} <= names
