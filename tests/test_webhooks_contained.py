"""One receiver's trouble stays with its deliveries: a URL httpx cannot send to, a name
that resolves to one address for the check and another for the connection (DNS
rebinding), an endpoint removed during its attempt, and slow receivers of one tenant
while another tenant's deliveries are due. Real local receivers; the resolver is the
only stand-in (a name that changes its answer cannot be had from a real one here)."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

import pytest
from django.db import connections

from memories.models import WebhookDelivery
from memories.services.jobs.runner import job_run
from memories.services.webhooks.delivery import delivery_attempt
from tests.support import factories
from tests.support.webhook_receiver import WebhookReceiver

Status = WebhookDelivery.Status
_REAL_GETADDRINFO = socket.getaddrinfo


@pytest.fixture
def receiver():
    with WebhookReceiver() as server:
        yield server


def _answers(*addresses):
    """A resolver for ``rebind.test`` that gives each of ``addresses`` in turn (the last
    one from then on); any other name is resolved for real. It counts its answers."""
    given: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "rebind.test":
            return _REAL_GETADDRINFO(host, port, *args, **kwargs)
        address = addresses[min(len(given), len(addresses) - 1)]
        given.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 80))]

    return getaddrinfo, given


@pytest.mark.django_db
def test_a_url_httpx_cannot_send_to_fails_its_delivery_and_no_other(personas, receiver, settings):
    """Stored before registration checked hosts: the attempt fails and says so (it used to
    raise out of the sweep, leave the delivery 'sending' for ever and stop every tenant's
    retries); the other tenant's delivery goes through in the same run."""
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    broken = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url="http://a..b:8080/x"
    )
    fine = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.other_tenant, endpoint__url=receiver.url
    )
    run = job_run("webhooks")
    assert run.outcome == "succeeded"
    broken.refresh_from_db()
    fine.refresh_from_db()
    assert broken.status == Status.RETRYING
    assert broken.last_error.startswith("could not resolve a..b")
    assert fine.status == Status.DELIVERED
    assert len(receiver.received) == 1


@pytest.mark.django_db
def test_a_name_that_rebinds_to_loopback_reaches_nothing(personas, receiver, settings, monkeypatch):
    """The check saw a public address; the connection goes to that address, not to what
    a second lookup would answer (the receiver on loopback)."""
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = False
    settings.MEMORYHUB = {"WEBHOOK_TIMEOUT": 1.0}
    port = receiver.url.split(":")[2].split("/")[0]
    resolver, given = _answers("93.184.216.34", "127.0.0.1")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    delivery = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url=f"http://rebind.test:{port}/hooks"
    )
    done = delivery_attempt(delivery.pk)
    assert done is not None
    assert done.status == Status.RETRYING
    assert receiver.received == []
    assert given == ["93.184.216.34"]  # looked up once: the address checked is the one used


@pytest.mark.django_db
def test_a_name_is_sent_to_with_its_own_host_header(personas, receiver, settings, monkeypatch):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    port = receiver.url.split(":")[2].split("/")[0]
    resolver, given = _answers("127.0.0.1")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    delivery = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url=f"http://rebind.test:{port}/hooks"
    )
    done = delivery_attempt(delivery.pk)
    assert done is not None
    assert done.status == Status.DELIVERED
    (request,) = receiver.received
    assert request["headers"]["Host"] == f"rebind.test:{port}"
    assert request["path"] == "/hooks"
    assert given == ["127.0.0.1"]


@pytest.mark.django_db
def test_a_private_name_is_refused_by_default(personas, receiver, monkeypatch):
    port = receiver.url.split(":")[2].split("/")[0]
    monkeypatch.setattr(socket, "getaddrinfo", _answers("10.1.2.3")[0])
    delivery = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url=f"http://rebind.test:{port}/hooks"
    )
    done = delivery_attempt(delivery.pk)
    assert done is not None
    assert (done.status, done.last_error) == (
        Status.FAILED,
        "refused: rebind.test is a private address (10.1.2.3)",
    )
    assert receiver.received == []


@pytest.mark.parametrize(
    "address", ["224.0.0.1", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1"]
)
@pytest.mark.django_db
def test_an_address_that_only_looks_global_is_refused(personas, receiver, monkeypatch, address):
    """Multicast is "global" to ``ipaddress``; an IPv6 address may carry a private IPv4 one
    (mapped, NAT64, 6to4)."""
    monkeypatch.setattr(socket, "getaddrinfo", _answers(address)[0])
    delivery = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url="http://rebind.test/hooks"
    )
    done = delivery_attempt(delivery.pk)
    assert done is not None
    assert (done.status, done.last_error) == (
        Status.FAILED,
        f"refused: rebind.test is a private address ({ipaddress.ip_address(address)})",
    )


@pytest.mark.django_db(transaction=True)
def test_an_endpoint_removed_during_its_attempt_is_let_go(personas, receiver, settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    delivery = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.tenant, endpoint__url=receiver.url
    )
    receiver.script.append(("slow", 1.0))
    outcome: list = []

    def attempt():
        try:
            outcome.append(delivery_attempt(delivery.pk))
        except Exception as exc:
            outcome.append(exc)
        finally:
            connections.close_all()

    worker = threading.Thread(target=attempt)
    worker.start()
    while not receiver.received:
        time.sleep(0.05)
    delivery.endpoint.delete()
    worker.join(timeout=30)
    assert outcome == [None]
    assert not WebhookDelivery.objects.exists()


@pytest.mark.django_db
def test_one_tenants_slow_receiver_holds_up_no_other_tenant(personas, settings):
    """A slow endpoint times out once per run; its other deliveries wait for the next
    run instead of timing out one after the other while the other tenant waits."""
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    settings.MEMORYHUB = {"WEBHOOK_TIMEOUT": 0.5}
    with WebhookReceiver() as slow, WebhookReceiver() as quick:
        slow.script.extend([("slow", 2.0)] * 5)
        stuck = [
            factories.WebhookDeliveryFactory.create(
                endpoint=factories.WebhookEndpointFactory.create(
                    tenant=personas.tenant, url=slow.url
                )
            )
        ]
        stuck += factories.WebhookDeliveryFactory.create_batch(4, endpoint=stuck[0].endpoint)
        other = factories.WebhookDeliveryFactory.create(
            endpoint__tenant=personas.other_tenant, endpoint__url=quick.url
        )
        run = job_run("webhooks")
        assert run.counts == {"retrying": 1, "delivered": 1, "left_for_next_run": 4}
        other.refresh_from_db()
        assert other.status == Status.DELIVERED
        assert len(slow.received) == 1


@pytest.mark.django_db
def test_a_sweep_attempts_at_most_so_many_of_one_tenant(personas, receiver, settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    settings.MEMORYHUB = {"WEBHOOK_SWEEP_PER_TENANT": 3}
    endpoint = factories.WebhookEndpointFactory.create(tenant=personas.tenant, url=receiver.url)
    factories.WebhookDeliveryFactory.create_batch(5, endpoint=endpoint)
    other = factories.WebhookDeliveryFactory.create(
        endpoint__tenant=personas.other_tenant, endpoint__url=receiver.url
    )
    assert job_run("webhooks").counts == {"delivered": 4, "left_for_next_run": 2}
    other.refresh_from_db()
    assert other.status == Status.DELIVERED
    assert job_run("webhooks").counts == {"delivered": 2}
