"""Sending deliveries: one attempt at a time, claimed so that two workers never send the
same one at once, with a timeout, recorded (status, attempts, the last answer or error),
and retried with exponential backoff until ``WEBHOOK_MAX_ATTEMPTS``.

The claim is a conditional UPDATE that marks the delivery ``sending`` and pushes its due
time past the attempt (the timeout and a margin): a worker that dies mid-attempt leaves a
delivery the sweep takes up again once that time has passed. The HTTP request runs
outside any transaction, so a slow receiver holds no lock and no connection in a
transaction, and never an ingest request (sending happens in the worker, after commit).

The receiver's name is resolved once per attempt: the addresses are checked (none may be
private unless ``MEMORYHUB_WEBHOOK_ALLOW_PRIVATE``), and the request goes to the address
that was checked, with the name as ``Host`` and, for HTTPS, as the TLS server name the
certificate is checked against. A name that answers a public address to the check and a
loopback one to the connection (DNS rebinding) reaches nothing it should not.

Whatever goes wrong with one delivery stays with it: any error of an attempt is that
attempt's failure (retried, then failed), a delivery whose endpoint was removed meanwhile is
let go, and a sweep is bounded in time and per tenant, skipping for the rest of the sweep
the endpoints that just failed, so one tenant's slow or broken receivers hold up no other
tenant's deliveries. A receiver's answer is recorded by its status code only: its body is
the receiver's, and may be anything its network holds.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from memories.conf import setting
from memories.models import WebhookDelivery, WebhookEvent
from memories.services.webhooks.endpoints import public_address
from memories.services.webhooks.events import content_included
from memories.services.webhooks.signing import signed_headers

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
DUE = (Status.PENDING, Status.SENDING, Status.RETRYING)
MAX_RETRY_DELAY = timedelta(hours=6)
_CLAIM_MARGIN = timedelta(seconds=60)
SWEEP_BATCH = 200


def retry_delay(attempts: int) -> timedelta:
    """After the ``attempts``-th failed attempt: 30 s, 2 min, 8 min, 32 min… (at most 6 h)."""
    seconds = float(setting("WEBHOOK_RETRY_SECONDS")) * 4 ** (attempts - 1)
    return min(timedelta(seconds=seconds), MAX_RETRY_DELAY)


def body_of(delivery: WebhookDelivery) -> bytes:
    """What is sent: the same bytes on every attempt (only the signature's time changes)."""
    return json.dumps(
        {
            "id": str(delivery.pk),
            "type": delivery.event,
            "created_at": delivery.created_at.isoformat(),
            "sequence": delivery.sequence,
            "tenant": delivery.tenant.slug,
            "content_included": content_included(delivery.tenant),
            "data": delivery.payload,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def _claim(delivery_id) -> WebhookDelivery | None:
    now = timezone.now()
    timeout = timedelta(seconds=float(setting("WEBHOOK_TIMEOUT")))
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status__in=DUE, next_attempt_at__lte=now
    ).update(
        status=Status.SENDING,
        attempts=F("attempts") + 1,
        next_attempt_at=now + timeout + _CLAIM_MARGIN,
    )
    if not claimed:
        return None  # sent, given up, not due yet, or another worker has it
    return WebhookDelivery.objects.select_related("endpoint", "tenant").get(pk=delivery_id)


@dataclass(frozen=True)
class Target:
    """Where an attempt connects: ``url`` with the checked address for its host, and the
    headers and TLS name that keep the request addressed to the registered name."""

    url: str
    host_header: str
    server_name: str | None  # for HTTPS: the name the certificate must be valid for


def resolved_target(url: str) -> tuple[Target | None, str]:
    """(the target, "") for ``url``, or (None, why not): its host resolved once, every
    address it resolves to public unless ``MEMORYHUB_WEBHOOK_ALLOW_PRIVATE`` (a registered
    URL must not make the server reach its own network)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        return None, f"could not resolve {host}: {exc}"
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    if not addresses:
        return None, f"could not resolve {host}: no address"
    if not settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE:
        for address in addresses:
            if not public_address(address):
                return None, f"refused: {host} is a private address ({address})"
    address = addresses[0]
    literal = f"[{address}]" if address.version == 6 else str(address)
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    host_header = f"{host}:{parts.port}" if parts.port else host
    server_name = host if parts.scheme == "https" else None
    return Target(urlunsplit(parts._replace(netloc=netloc)), host_header, server_name), ""


def _send(delivery: WebhookDelivery) -> tuple[int | None, str]:
    """(status code, error) of one attempt; an empty error means delivered. Never raises:
    whatever fails is the attempt's error."""
    url = delivery.endpoint.url
    try:
        target, refused = resolved_target(url)
        if target is None:
            return None, refused
        body = body_of(delivery)
        headers = {
            "Host": target.host_header,
            "Content-Type": "application/json",
            "User-Agent": "memoryhub-webhooks",
            "Memoryhub-Event": delivery.event,
            "Memoryhub-Delivery": str(delivery.pk),
            **signed_headers(delivery.endpoint.secret, body),
        }
        extensions = {"sni_hostname": target.server_name} if target.server_name else {}
        timeout = float(setting("WEBHOOK_TIMEOUT"))
        try:
            with httpx.Client(timeout=timeout) as http:
                request = http.build_request(
                    "POST", target.url, content=body, headers=headers, extensions=extensions
                )
                response = http.send(request)
        except httpx.TimeoutException:
            return None, f"timed out after {timeout:g} s"
        except httpx.HTTPError as exc:
            return None, f"could not connect: {exc}"
    except Exception as exc:
        logger.warning("webhook %s to %r failed", delivery.pk, url, exc_info=True)
        return None, f"could not send: {exc.__class__.__name__}"
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    return response.status_code, f"HTTP {response.status_code}"


def delivery_attempt(delivery_id) -> WebhookDelivery | None:
    """Try ``delivery_id`` once if it is due and nobody else is; the delivery as it is
    after, or None when there was nothing to do."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    code, error = _send(delivery)
    now = timezone.now()
    delivery.last_status_code, delivery.last_error = code, error
    if not error:
        delivery.status, delivery.delivered_at = Status.DELIVERED, now
    elif error.startswith("refused") or delivery.attempts >= int(setting("WEBHOOK_MAX_ATTEMPTS")):
        delivery.status = Status.FAILED
    else:
        delivery.status = Status.RETRYING
        delivery.next_attempt_at = now + retry_delay(delivery.attempts)
    fields = ["status", "last_status_code", "last_error", "delivered_at", "next_attempt_at"]
    if delivery.event == WebhookEvent.CLIENT_ERASED and delivery.status in (
        Status.DELIVERED,
        Status.FAILED,
    ):
        delivery.payload = {}  # the erased client's reference goes once it is told
        fields.append("payload")
    # An UPDATE, not save(): the endpoint (and its deliveries) may have been removed
    # during the attempt; then there is nothing left to record.
    recorded = WebhookDelivery.objects.filter(pk=delivery.pk).update(
        **{name: getattr(delivery, name) for name in fields}
    )
    if not recorded:
        return None
    if error:
        logger.info("webhook %s to %s: %s", delivery.pk, delivery.endpoint.url, error)
    return delivery


def deliveries_send(delivery_ids) -> dict[str, int]:
    """Attempt each of ``delivery_ids`` (the task enqueued after a write commits)."""
    sweep = _Sweep(time.monotonic() + float(setting("WEBHOOK_SWEEP_SECONDS")))
    for delivery_id in delivery_ids:
        sweep.attempt(delivery_id)
    return sweep.counts


@dataclass
class _Sweep:
    """The bounds of one run over due deliveries: a deadline, attempts per tenant, and the
    endpoints that failed in it (their other deliveries wait for the next run)."""

    deadline: float
    counts: dict[str, int] = field(default_factory=dict)
    per_tenant: dict = field(default_factory=dict)
    failing: set = field(default_factory=set)

    def attempt(self, delivery_id) -> None:
        try:
            done = delivery_attempt(delivery_id)
        except Exception:
            logger.exception("webhook delivery %s could not be attempted", delivery_id)
            self.counts["errors"] = self.counts.get("errors", 0) + 1
            return
        if done is not None:
            self.counts[done.status] = self.counts.get(done.status, 0) + 1
            if done.status != Status.DELIVERED:
                self.failing.add(done.endpoint_id)

    def over(self) -> bool:
        return time.monotonic() >= self.deadline


def webhooks_send_due(*, tenant_id=None, counts) -> None:
    """The job: every delivery that is due (new ones whose task was lost, retries whose
    time has come, attempts whose worker died), oldest due first, tenants in turn, within
    the sweep's bounds (``WEBHOOK_SWEEP_SECONDS``, ``WEBHOOK_SWEEP_PER_TENANT``, and an
    endpoint that failed waits); what is left is the next run's."""
    sweep = _Sweep(time.monotonic() + float(setting("WEBHOOK_SWEEP_SECONDS")))
    per_tenant = int(setting("WEBHOOK_SWEEP_PER_TENANT"))
    seen: set = set()
    while not sweep.over():
        due = WebhookDelivery.objects.filter(status__in=DUE, next_attempt_at__lte=timezone.now())
        if tenant_id is not None:
            due = due.filter(tenant_id=tenant_id)
        rows = list(
            due.exclude(pk__in=seen)
            .order_by("next_attempt_at")
            .values_list("pk", "tenant_id", "endpoint_id")[:SWEEP_BATCH]
        )
        if not rows:
            break
        seen.update(row[0] for row in rows)
        for pk, tenant, endpoint in _tenants_in_turn(rows):
            if sweep.over():
                break
            if endpoint in sweep.failing or sweep.per_tenant.get(tenant, 0) >= per_tenant:
                counts.add("left_for_next_run", 1)
                continue
            sweep.per_tenant[tenant] = sweep.per_tenant.get(tenant, 0) + 1
            sweep.attempt(pk)
    for status, n in sweep.counts.items():
        counts.add(status, n)


def _tenants_in_turn(rows: list[tuple]) -> list[tuple]:
    """``rows`` (pk, tenant, endpoint), oldest first, reordered so that tenants take turns:
    each tenant's first, then each tenant's second, and so on."""
    queues: dict = {}
    for row in rows:
        queues.setdefault(row[1], []).append(row)
    ordered = []
    for turn in range(max((len(q) for q in queues.values()), default=0)):
        ordered += [q[turn] for q in queues.values() if turn < len(q)]
    return ordered
