"""memoryhub-client (clients/python/) against the live ASGI application: every call, sync
and async; retries that honour Retry-After; errors with the API's code, message and
fields; a batch of 1,200 events sent as three requests."""

import asyncio
import json
import socket
from dataclasses import dataclass, field

import httpx
import pytest
from memoryhub_client import (
    AsyncMemoryHub,
    AuthenticationError,
    InvalidRequest,
    MemoryHub,
    NotFound,
    PermissionDenied,
    RateLimited,
    Retry,
    ServerError,
)
from memoryhub_client.types import EventIn

from curation.models import ReviewItem
from memories.models import Client, Event, Memory
from tests.support import factories
from tests.support.live import LiveAsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "I prefer to be contacted by email."


@pytest.fixture
def server():
    with LiveAsgiServer() as live:
        yield live


@pytest.fixture
def supervisor_key(personas):
    return factories.api_key_for(personas.supervisor, personas.tenant)[1]


class Recorder:
    """What went over the wire: each request's path and body size, each answer's status."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.statuses: list[int] = []

    def client(self) -> httpx.Client:
        return httpx.Client(
            timeout=60,
            event_hooks={
                "request": [lambda r: self.sent.append((r.method, r.url.path))],
                "response": [lambda r: self.statuses.append(r.status_code)],
            },
        )


@dataclass(frozen=True)
class RecordingRetry(Retry):
    """The client's retry policy, noting each wait it chose."""

    waits: list = field(default_factory=list)

    def after_answer(self, attempt, call, response):
        wait = super().after_answer(attempt, call, response)
        self.waits.append((response.status_code, response.headers.get("Retry-After"), wait))
        return wait


def test_every_call(server, personas, supervisor_key):
    with MemoryHub(server.url, supervisor_key) as hub:
        assert hub.health()["database"]["ok"] is True
        assert [t["function"]["name"] for t in hub.tools()][:2] == ["remember", "recall"]

        added = hub.add_event("emma", EMAIL, session="call-1", external_id="m-1")
        (memory,) = added["memories"]
        assert (added["event"]["external_id"], memory["action"]) == ("m-1", "added")
        replayed = hub.add_event("emma", EMAIL, session="call-1", external_id="m-1")
        assert replayed["event"]["id"] == added["event"]["id"]
        assert Event.objects.filter(client__external_ref="emma").count() == 1
        generated = hub.add_event("emma", "We are planning to buy a house in Bristol.")
        assert generated["event"]["external_id"].startswith("mhc-")

        assert [h["id"] for h in hub.search("emma", "email", k=1)] == [memory["id"]]
        assert hub.search("emma", "email", filters={"kind": ["decision"]}) == []
        context = hub.context("emma", "How should I write to her?", budget_chars=500)
        assert EMAIL in context["text"]
        assert [e["text"] for e in hub.profile("emma")["profile"]["static"]] == [EMAIL]
        page = hub.list_clients(limit=2)
        assert ([c["ref"] for c in page["results"]], page["next_offset"]) == (["carlos", "emma"], 2)
        named = hub.set_client("laura-conti", display_name="Laura Conti", language="it")
        assert (named["ref"], named["display_name"], named["language"]) == (
            "laura-conti",
            "Laura Conti",
            "it",
        )
        assert hub.set_client("laura-conti", language="es")["display_name"] == "Laura Conti"
        chosen = hub.set_client_advisors("laura-conti", ["advisor"])
        assert chosen == {"client": "laura-conti", "advisors": ["advisor"], "groups": []}
        assert hub.client_advisors("laura-conti") == chosen
        listed = hub.list_memories("emma", limit=1)
        assert [m["content"] for m in listed] == ["We are planning to buy a house in Bristol."]
        assert hub.get_memory(memory["id"])["evidence"][0]["external_id"] == "m-1"
        assert [v["id"] for v in hub.history(memory["id"])] == [memory["id"]]
        rated = hub.feedback(memory["id"], useful=False, note="not asked")
        assert rated["confidence"] == Memory.objects.get(pk=memory["id"]).confidence
        assert hub.forget(memory["id"], reason="asked to")["status"] == "deleted"

        old = factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
        new = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
        item = factories.ReviewItemFactory.create(memory=new, other_memory=old)
        queue = hub.review_queue(type="conflict", page_size=5)
        assert (queue["count"], [i["id"] for i in queue["results"]]) == (1, [str(item.pk)])
        detail = hub.review_item(str(item.pk))
        assert detail["memory_detail"]["content"] == "Prefers phone."
        assert detail["other_memory_detail"] is not None
        assert detail["other_memory_detail"]["content"] == "Prefers email."
        decided = hub.decide_review(str(item.pk), "accept_new", reason="confirmed")
        assert (decided["state"], decided["decision"]) == ("decided", "accept_new")
        assert ReviewItem.objects.get(pk=item.pk).state == "decided"

        hook = hub.add_webhook("https://crm.example.com/hooks", ["client.erased"])
        assert hook["secret"].startswith("whsec_")
        assert [h["id"] for h in hub.list_webhooks()] == [hook["id"]]
        assert hub.delete_webhook(hook["id"])["url"] == "https://crm.example.com/hooks"
        assert hub.list_webhooks() == []

        document = hub.export_client("emma")
        assert document["client"]["external_ref"] == "emma"
        assert hub.erase_client("emma")["erased"]["client"] == "emma"
        assert not Client.objects.filter(tenant=personas.tenant, external_ref="emma").exists()
        assert hub.import_client(document)["imported"]["client"] == "emma"
        assert Event.objects.filter(client__external_ref="emma").count() == 2


def test_the_probes_say_live_and_ready_and_not_ready_when_nothing_answers(server):
    with MemoryHub(server.url, "no key is needed") as hub:
        assert (hub.live(), hub.ready()) == (True, True)
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{closed.getsockname()[1]}"
    with MemoryHub(nobody, "no key is needed") as hub:
        assert (hub.live(), hub.ready()) == (False, False)

    async def probes():
        async with AsyncMemoryHub(server.url, "no key is needed") as hub:
            return await hub.live(), await hub.ready()

    assert asyncio.run(probes()) == (True, True)


def test_the_async_client(server, personas, supervisor_key):
    async def scenario():
        async with AsyncMemoryHub(server.url, supervisor_key) as hub:
            added = await hub.add_event("emma", EMAIL, external_id="a-1")
            hits = await hub.search("emma", "email")
            batch = await hub.add_events(
                [
                    {"client": "emma", "content": "Thank you!", "external_id": f"t-{i}"}
                    for i in range(3)
                ]
            )
            context = await hub.context("emma", "How should I write to her?")
            try:
                await hub.get_memory("00000000-0000-0000-0000-000000000000")
            except NotFound as exc:
                missing = exc
            return added, hits, batch, context, missing

    added, hits, batch, context, missing = asyncio.run(scenario())
    assert [h["id"] for h in hits] == [added["memories"][0]["id"]]
    assert [r["event"]["external_id"] for r in batch] == ["t-0", "t-1", "t-2"]
    assert EMAIL in context["text"]
    assert (missing.status, missing.code) == (404, "not_found")


def test_a_429_is_retried_after_retry_after(server, personas, supervisor_key, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"read": "1/second", "write": "100/minute"},
    }
    recorder, retry = Recorder(), RecordingRetry()
    with MemoryHub(server.url, supervisor_key, retry=retry, http_client=recorder.client()) as hub:
        assert hub.search("emma", "email") == []
        assert hub.search("emma", "email") == []  # refused once, then let through
    assert recorder.statuses == [200, 429, 200]
    # The 429 came with Retry-After: 2 (this second's two hits must fade out of the
    # sliding window), and the client waited exactly that.
    assert retry.waits == [(200, None, None), (429, "2", 2.0), (200, None, None)]


def test_a_429_beyond_the_longest_wait_is_raised(server, personas, supervisor_key, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"read": "1/hour", "write": "100/minute"},
    }
    with MemoryHub(server.url, supervisor_key, retry=Retry(max_retry_after=5)) as hub:
        hub.search("emma", "email")
        with pytest.raises(RateLimited) as refused:
            hub.search("emma", "email")
    assert refused.value.status == 429
    assert refused.value.code == "throttled"
    assert refused.value.retry_after is not None and refused.value.retry_after > 5
    assert refused.value.message.startswith(
        "Too many requests for this API key: the limit is 1 read requests per hour."
    )


def test_a_400_carries_the_fields_and_stores_nothing(server, personas, supervisor_key):
    with MemoryHub(server.url, supervisor_key) as hub, pytest.raises(InvalidRequest) as refused:
        hub.add_event("emma", "   ", source="email")  # type: ignore[arg-type]
    error = refused.value
    assert (error.status, error.code) == (400, "invalid")
    assert error.fields == {
        "source": ['"email" is not a valid choice.'],
        "content": ["Content is empty once whitespace is removed."],
    }
    assert error.message == (
        'source: "email" is not a valid choice.; content: Content is empty once whitespace '
        "is removed."
    )
    assert Event.objects.count() == 0


def test_other_refusals_are_their_own_exceptions(server, personas):
    _, client_key = factories.api_key_for(personas.client_user, personas.tenant)
    with MemoryHub(server.url, client_key) as hub, pytest.raises(PermissionDenied) as denied:
        hub.add_event("emma", EMAIL)
    assert denied.value.message == "This role has read-only access to memory."
    with MemoryHub(server.url, "mh_00000000_nope") as hub, pytest.raises(AuthenticationError):
        hub.health()
    assert Event.objects.count() == 0


def test_1200_events_go_as_three_requests_and_a_failed_one_can_be_sent_again(
    server, personas, supervisor_key
):
    events: list[EventIn] = [{"client": "emma", "content": "Thank you!"} for _ in range(1200)]
    events[1100]["content"] = ""
    recorder = Recorder()
    with MemoryHub(server.url, supervisor_key, http_client=recorder.client()) as hub:
        with pytest.raises(InvalidRequest) as refused:
            hub.add_events(events)
        assert recorder.sent == [("POST", "/api/v1/events/batch/")] * 3
        assert recorder.statuses == [201, 201, 400]
        error = refused.value
        # Named as in the caller's list, not the third request's.
        assert error.fields == {"events[1100].content": ["This field may not be blank."]}
        assert error.message == "events[1100].content: This field may not be blank."
        assert (error.offset, len(error.stored)) == (1000, 1000)
        assert Event.objects.count() == 1000

        # Every event was given an external_id in the caller's list, so sending the
        # same list again replays the first 1,000 and stores only the rest.
        events[1100]["content"] = "Thank you!"
        results = hub.add_events(events)
    assert recorder.statuses[3:] == [201, 201, 201]
    assert [r["event"]["external_id"] for r in results] == [e["external_id"] for e in events]
    assert [r["event"]["id"] for r in results[:1000]] == [r["event"]["id"] for r in error.stored]
    assert Event.objects.count() == 1200
    assert len({e["external_id"] for e in events}) == 1200


class _ScriptedServer:
    """A local HTTP server that answers each request with the next scripted
    (status, headers, body), and records the requests; stands in for a proxy in front of
    memoryhub, or for something that is not memoryhub at all."""

    def __init__(self, *answers):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.answers: list = list(answers)
        self.requests: list[tuple[str, str]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("Content-Length", 0))
                self.rfile.read(length)
                scripted.requests.append((self.command, self.path))
                status, headers, body = scripted.answers.pop(0)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


_UNAVAILABLE = json.dumps(
    {"error": {"code": "database_unavailable", "message": "down", "fields": {}}}
).encode()
_WEBHOOK = json.dumps(
    {
        "id": "0b8f6a52-3c1e-4f55-9a7d-2f4c1e0d9b11",
        "url": "https://crm.example.com/hooks",
        "events": ["memory.added"],
    }
).encode()


def test_a_proxys_503_to_a_call_that_is_not_safe_to_repeat_is_raised_not_repeated():
    answers = [(503, {"Content-Type": "text/html"}, b"<h1>Service Unavailable</h1>")]
    with (
        _ScriptedServer(*answers) as proxy,
        MemoryHub(proxy.url, "mh_key") as hub,
        pytest.raises(ServerError) as failed,
    ):
        hub.add_webhook("https://crm.example.com/hooks", ["memory.added"])
    assert failed.value.status == 503
    assert proxy.requests == [("POST", "/api/v1/webhooks/")]  # once: it may have been done


def test_memoryhubs_own_503_is_repeated_for_any_call_and_never_at_once():
    answers = [
        (503, {"Content-Type": "application/json", "Retry-After": "0"}, _UNAVAILABLE),
        (201, {"Content-Type": "application/json"}, _WEBHOOK),
    ]
    retry = RecordingRetry(backoff=0.05)
    with _ScriptedServer(*answers) as server, MemoryHub(server.url, "mh_key", retry=retry) as hub:
        assert hub.add_webhook("https://crm.example.com/hooks", ["memory.added"])["id"]
    assert len(server.requests) == 2
    (status, said, waited), _ = retry.waits
    assert (status, said) == (503, "0")
    assert waited > 0  # Retry-After: 0 is no reason to send again at once


def test_a_200_that_is_not_json_is_a_clear_error():
    answers = [(200, {"Content-Type": "text/html"}, b"<html>a login page</html>")]
    with (
        _ScriptedServer(*answers) as other,
        MemoryHub(other.url, "mh_key") as hub,
        pytest.raises(ServerError) as failed,
    ):
        hub.search("emma", "email")
    assert failed.value.code == "not_json"
    assert failed.value.message.startswith(
        "The server answered 200 with something other than JSON (text/html)"
    )
