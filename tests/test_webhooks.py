"""Webhooks delivered to a local HTTP receiver: signed (checked here with hmac, and with
the client package's helper), one per event the endpoint wants, retried with backoff when
the receiver fails, a slow receiver timed out in the worker while ingest answers at once,
and no encrypted tenant's words unless it allows them."""

import hashlib
import hmac
import json
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.utils import timezone
from django.utils.module_loading import import_string
from django_q.conf import Conf
from django_q.models import OrmQ
from memoryhub_client.webhooks import verify

from memories.models import Memory, Relation, RelationType, Role, WebhookDelivery
from memories.services.jobs.runner import job_run
from memories.services.secrets import accounts_masked
from memories.services.tenancy.encryption import tenant_create
from tests.support import factories
from tests.support.webhook_receiver import WebhookReceiver

pytestmark = pytest.mark.django_db

EMAIL = "I prefer to be contacted by email."
Status = WebhookDelivery.Status


@pytest.fixture
def receiver(settings):
    """A receiver on this machine: loopback, so private addresses are allowed here."""
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    with WebhookReceiver() as server:
        yield server


@pytest.fixture
def endpoint(personas, receiver):
    return factories.WebhookEndpointFactory.create(tenant=personas.tenant, url=receiver.url)


def _signature_ok(endpoint, request) -> bool:
    timestamp = request["headers"]["Memoryhub-Timestamp"]
    expected = hmac.new(
        endpoint.secret.encode(), f"{timestamp}.".encode() + request["body"], hashlib.sha256
    ).hexdigest()
    return request["headers"]["Memoryhub-Signature"] == f"v1={expected}"


def test_a_memory_added_is_delivered_signed(personas, endpoint, receiver, post_event):
    answer = post_event(EMAIL, session="call-1", external_id="m-1")
    (request,) = receiver.received
    (delivery,) = WebhookDelivery.objects.all()
    assert _signature_ok(endpoint, request)
    assert verify(endpoint.secret, request["body"], request["headers"])
    assert not verify("whsec_another", request["body"], request["headers"])
    assert request["headers"]["Memoryhub-Event"] == "memory.added"
    assert request["headers"]["Memoryhub-Delivery"] == str(delivery.pk)
    memory = answer["memories"][0]
    assert json.loads(request["body"]) == {
        "id": str(delivery.pk),
        "type": "memory.added",
        "created_at": delivery.created_at.isoformat(),
        "sequence": 1,
        "tenant": "acme",
        "content_included": True,
        "data": {
            "client": "emma",
            "event": {
                "id": answer["event"]["id"],
                "external_id": "m-1",
                "session": "call-1",
                "observed_at": answer["event"]["observed_at"].replace("Z", "+00:00"),
            },
            "memories": [
                {
                    "id": memory["id"],
                    "kind": "semantic",
                    "category": "preference",
                    "tier": "recall",
                    "status": "active",
                    "action": "added",
                    "related": None,
                    "content": EMAIL,
                }
            ],
        },
    }
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        Status.DELIVERED,
        1,
        204,
    )


def test_a_stale_or_forged_signature_fails_the_check(personas, endpoint, receiver, post_event):
    post_event(EMAIL)
    (request,) = receiver.received
    sent = int(request["headers"]["Memoryhub-Timestamp"])
    assert verify(endpoint.secret, request["body"], request["headers"], now=sent + 299)
    assert not verify(endpoint.secret, request["body"], request["headers"], now=sent + 301)
    assert not verify(endpoint.secret, request["body"] + b" ", request["headers"])


def test_only_the_events_active_endpoints_of_the_tenant_want(personas, receiver, post_event):
    wants_conflicts = factories.WebhookEndpointFactory.create(
        tenant=personas.tenant, url=receiver.url, events=["conflict.opened"]
    )
    factories.WebhookEndpointFactory.create(tenant=personas.tenant, url=receiver.url, active=False)
    factories.WebhookEndpointFactory.create(tenant=personas.other_tenant, url=receiver.url)
    post_event(EMAIL)
    post_event("Thank you!")  # nothing learnt: nothing to tell
    assert receiver.received == []
    assert not WebhookDelivery.objects.exists()
    assert wants_conflicts.deliveries.count() == 0


def test_a_change_is_memory_updated(personas, endpoint, receiver, said_later):
    action, _ = said_later(
        "I have decided to sell the buy-to-let flat in Salford.",
        "I have decided to keep the Salford flat after all.",
    )
    assert action == "updated"
    added, updated = receiver.bodies()
    assert (added["type"], updated["type"]) == ("memory.added", "memory.updated")
    (change,) = updated["data"]["memories"]
    assert change["related"] == {
        "id": added["data"]["memories"][0]["id"],
        "status": "superseded",
    }


def test_a_conflict_opened_then_decided(
    personas, endpoint, receiver, api_client, django_capture_on_commit_callbacks
):
    from curation.services.review import conflict_reviews_open

    old = factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    new = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    relation = Relation.objects.create(
        tenant=personas.tenant, source=new, target=old, type=RelationType.CONFLICTS_WITH
    )
    with django_capture_on_commit_callbacks(execute=True):
        (item,) = conflict_reviews_open(relation_ids=[relation.pk])
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    with django_capture_on_commit_callbacks(execute=True):
        decided = api_client.post(
            f"/api/v1/review/{item.pk}/decide/",
            {"decision": "accept_new", "reason": "confirmed by phone"},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
    assert decided.status_code == 200
    opened, decision = receiver.bodies()
    assert opened["type"] == "conflict.opened"
    assert opened["data"]["review_item"] == {"id": str(item.pk), "type": "conflict"}
    assert (opened["data"]["memory"]["content"], opened["data"]["other_memory"]["content"]) == (
        "Prefers phone.",
        "Prefers email.",
    )
    assert decision["type"] == "review.decided"
    review = decision["data"]["review_item"]
    assert (review["state"], review["decision"], review["reason"], review["decided_by"]) == (
        "decided",
        "accept_new",
        "confirmed by phone",
        "supervisor",
    )


def test_an_erased_client_is_told_and_its_deliveries_go(
    personas, endpoint, receiver, post_event, api_client, django_capture_on_commit_callbacks
):
    post_event(EMAIL)
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    with django_capture_on_commit_callbacks(execute=True):
        erased = api_client.delete("/api/v1/clients/emma/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert erased.status_code == 200
    _, told = receiver.bodies()
    assert told["type"] == "client.erased"
    assert told["data"]["client"] == "emma"
    assert told["data"]["client_id"] == str(personas.client.pk)
    # What was sent about the client went with it; the erasure's own delivery keeps no
    # reference once delivered.
    (left,) = WebhookDelivery.objects.all()
    assert (left.event, left.status, left.payload, left.client_id) == (
        "client.erased",
        Status.DELIVERED,
        {},
        None,
    )


def test_each_clients_events_are_numbered_in_the_order_they_were_written(
    personas,
    endpoint,
    receiver,
    said_later,
    post_event,
    api_client,
    django_capture_on_commit_callbacks,
):
    said_later(
        "I have decided to sell the buy-to-let flat in Salford.",
        "I have decided to keep the Salford flat after all.",
    )
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    post_event(EMAIL, client="carlos", key=key)
    with django_capture_on_commit_callbacks(execute=True):
        erased = api_client.delete("/api/v1/clients/emma/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert erased.status_code == 200
    assert [(b["type"], b["data"]["client"], b["sequence"]) for b in receiver.bodies()] == [
        ("memory.added", "emma", 1),
        ("memory.updated", "emma", 2),
        ("memory.added", "carlos", 1),  # another client counts on its own
        ("client.erased", "emma", 3),  # after everything the client had
    ]


def test_a_tenant_without_endpoints_takes_no_numbers(personas, post_event):
    post_event(EMAIL)
    personas.client.refresh_from_db()
    assert personas.client.webhook_sequence == 0


def test_a_failing_receiver_is_retried_with_backoff(personas, endpoint, receiver, post_event):
    receiver.script.extend([500, 503])
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        post_event(EMAIL)
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        Status.RETRYING,
        1,
        500,
    )
    assert delivery.last_error == "HTTP 500"  # the status only: the body is the receiver's
    assert delivery.next_attempt_at == start + timedelta(seconds=30)

    with time_machine.travel(start + timedelta(seconds=29), tick=False):
        job_run("webhooks")  # not due yet
    assert len(receiver.received) == 1
    with time_machine.travel(start + timedelta(seconds=31), tick=False):
        run = job_run("webhooks")
    assert run.counts == {"retrying": 1}
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code) == (2, 503)
    assert delivery.next_attempt_at == start + timedelta(seconds=31 + 120)
    with time_machine.travel(start + timedelta(seconds=31 + 121), tick=False):
        assert job_run("webhooks").counts == {"delivered": 1}
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == (Status.DELIVERED, 3, "")
    # The same event each time (same id and body), each attempt freshly signed.
    first, second, third = receiver.received
    assert first["body"] == second["body"] == third["body"]
    assert {r["headers"]["Memoryhub-Delivery"] for r in receiver.received} == {str(delivery.pk)}
    assert all(_signature_ok(endpoint, r) for r in receiver.received)


def test_a_receiver_that_keeps_failing_is_given_up(
    personas, endpoint, receiver, post_event, settings
):
    settings.MEMORYHUB = {"WEBHOOK_MAX_ATTEMPTS": 2}
    receiver.script.extend([500, 500, 500])
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        post_event(EMAIL)
    with time_machine.travel(start + timedelta(minutes=1), tick=False):
        assert job_run("webhooks").counts == {"failed": 1}
    with time_machine.travel(start + timedelta(hours=7), tick=False):
        assert job_run("webhooks").counts == {}
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == (Status.FAILED, 2)
    assert len(receiver.received) == 2


def _run_queued(func: str) -> list:
    """What a django-q2 worker does with the queued tasks of ``func``: run each, in order."""
    done = []
    for queued in OrmQ.objects.order_by("id"):
        task = queued.task
        if task["func"] == func:
            done.append(import_string(func)(*task["args"], **task["kwargs"]))
            queued.delete()
    return done


def test_a_slow_receiver_times_out_in_the_worker_not_in_ingest(
    personas,
    endpoint,
    receiver,
    api_client,
    agent_key,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    settings.MEMORYHUB = {"WEBHOOK_TIMEOUT": 0.5}
    receiver.script.append(("slow", 3))
    monkeypatch.setattr(Conf, "SYNC", False)  # a real queue: tasks wait for a worker
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client.post(
            "/api/v1/events/",
            {"client": "emma", "content": EMAIL},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {agent_key}",
        )
    assert answer.status_code == 201
    # Ingest answered with the delivery queued, not attempted.
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == (Status.PENDING, 0)
    assert receiver.received == []
    assert [q.task["args"] for q in OrmQ.objects.all() if "webhook" in q.task["func"]] == [
        ([str(delivery.pk)],)
    ]

    assert _run_queued("memories.tasks.webhook_deliveries_send") == [{"retrying": 1}]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        Status.RETRYING,
        1,
        None,
    )
    assert delivery.last_error == "timed out after 0.5 s"


def test_private_addresses_are_refused_when_not_allowed(
    personas, endpoint, receiver, post_event, settings
):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = False
    post_event(EMAIL)
    delivery = WebhookDelivery.objects.get()
    assert receiver.received == []
    assert (delivery.status, delivery.last_error) == (
        Status.FAILED,
        "refused: 127.0.0.1 is a private address (127.0.0.1)",
    )


# One Italian and one British IBAN, as people write them: upper or lower case, in groups
# of four apart by spaces or dashes, or in one piece.
IBANS = [
    "IT60 X054 2811 1010 0000 0123 456",
    "it60x0542811101000000123456",
    "It60-X054-2811-1010-0000-0123-456",
    "GB82-WEST-1234-5698-7654-32",
    "gb82 west 1234 5698 7654 32",
    "GB82WEST12345698765432",
]


@pytest.mark.parametrize("iban", IBANS)
def test_an_iban_goes_out_masked_however_it_is_written(
    personas, endpoint, receiver, post_event, iban
):
    post_event(f"My IBAN is {iban} for the rent.")
    (body,) = receiver.bodies()
    assert [m["content"] for m in body["data"]["memories"]] == ["My IBAN is [IBAN] for the rent."]
    assert Memory.objects.get().content == f"My IBAN is {iban} for the rent."  # kept


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("IBAN: gb82 west 1234 5698 7654 32, then it60x0542811101000000123456.",
         "IBAN: [IBAN], then [IBAN]."),
        ("GB82 WEST 1234 5698 7654 32 45 is the wrong one", "[IBAN] 45 is the wrong one"),
        # Look-alikes stay: a wrong check digit, a longer token, a policy number.
        ("GB82 WEST 1234 5698 7654 33", "GB82 WEST 1234 5698 7654 33"),
        ("GB82WEST12345698765432X", "GB82WEST12345698765432X"),
        ("policy AB12 CDEF 1234 5678 9012", "policy AB12 CDEF 1234 5678 9012"),
    ],
)  # fmt: skip
def test_what_is_masked_is_an_iban_and_only_that(text, sent):
    assert accounts_masked(text) == sent


@pytest.fixture
def vault(receiver):
    tenant = tenant_create(slug="vault", name="Vault", encrypted=True)
    user = factories.UserFactory.create(username="vault-supervisor")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    factories.WebhookEndpointFactory.create(tenant=tenant, url=receiver.url)
    _, key = factories.api_key_for(user, tenant)
    return tenant, key


def _stored_payloads() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT payload::text FROM memories_webhookdelivery")
        return [row[0] for row in cursor.fetchall()]


def test_an_encrypted_tenant_sends_no_words_by_default(vault, receiver, post_event):
    _, key = vault
    post_event(EMAIL, client="ada", key=key)
    (body,) = receiver.bodies()
    assert body["content_included"] is False
    (memory,) = body["data"]["memories"]
    assert set(memory) == {"id", "kind", "category", "tier", "status", "action", "related"}
    assert EMAIL not in json.dumps(body)


def test_an_encrypted_tenant_that_allows_it_sends_words_sealed_at_rest(vault, receiver, post_event):
    tenant, key = vault
    tenant.webhook_plaintext_allowed = True
    tenant.save()
    post_event(EMAIL, client="ada", key=key)
    (body,) = receiver.bodies()
    assert body["content_included"] is True
    assert body["data"]["memories"][0]["content"] == EMAIL
    (stored,) = _stored_payloads()
    assert "email" not in stored and json.loads(stored).keys() == {"mh1"}
    assert Memory.objects.get().content == EMAIL


def test_encrypting_a_tenant_seals_its_deliveries_about_clients(personas, endpoint):
    from memories.services.tenancy.encryption import tenant_encrypt

    about = factories.WebhookDeliveryFactory.create(
        endpoint=endpoint, client=personas.client, payload={"memories": [{"content": EMAIL}]}
    )
    erased = factories.WebhookDeliveryFactory.create(
        endpoint=endpoint, event="client.erased", payload={"client": "zoe"}
    )
    counts = tenant_encrypt(tenant=personas.tenant)
    assert counts["memories.webhookdelivery"] == 1
    stored = dict(_raw_payloads())
    assert json.loads(stored[str(about.pk)]).keys() == {"mh1"}
    assert json.loads(stored[str(erased.pk)]) == {"client": "zoe"}  # about no client
    about.refresh_from_db()
    assert about.payload == {"memories": [{"content": EMAIL}]}


def test_updates_of_an_encrypted_tenants_deliveries_seal_per_client(vault):
    tenant, _ = vault
    client = factories.ClientFactory.create(tenant=tenant)
    endpoint = tenant.webhook_endpoints.get()
    about = factories.WebhookDeliveryFactory.create(endpoint=endpoint, client=client)
    erased = factories.WebhookDeliveryFactory.create(endpoint=endpoint, event="client.erased")
    assert WebhookDelivery.objects.update(payload={"memories": [EMAIL]}) == 2
    stored = dict(_raw_payloads())
    assert json.loads(stored[str(about.pk)]).keys() == {"mh1"}
    assert json.loads(stored[str(erased.pk)]) == {"memories": [EMAIL]}  # no client's key


def _raw_payloads() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT id::text, payload::text FROM memories_webhookdelivery")
        return cursor.fetchall()
