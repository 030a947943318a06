"""Sending deliveries: one attempt at a time, claimed so that two workers never send the
same one at once, with a timeout, recorded (status, attempts, the last answer or error),
and retried with exponential backoff until ``WEBHOOK_MAX_ATTEMPTS``.

The claim is a conditional UPDATE that marks the delivery ``sending`` and pushes its due
time past the attempt (the timeout and a margin): a worker that dies mid-attempt leaves a
delivery the sweep takes up again once that time has passed. The HTTP request runs
outside any transaction, so a slow receiver holds no lock and no connection in a
transaction, and never an ingest request (sending happens in the worker, after commit).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from memories.conf import setting
from memories.models import WebhookDelivery, WebhookEvent
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


def private_address(url: str) -> str | None:
    """The loopback, private, link-local or reserved address ``url``'s host resolves to,
    if any (refused unless ``MEMORYHUB_WEBHOOK_ALLOW_PRIVATE``: a registered URL must not
    make the server reach its own network)."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return None  # unresolvable: the attempt fails and says so
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            return str(address)
    return None


def _send(delivery: WebhookDelivery) -> tuple[int | None, str]:
    """(status code, error) of one attempt; an empty error means delivered."""
    url = delivery.endpoint.url
    if not settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE and (found := private_address(url)):
        return None, f"refused: {urlsplit(url).hostname} is a private address ({found})"
    body = body_of(delivery)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "memoryhub-webhooks",
        "Memoryhub-Event": delivery.event,
        "Memoryhub-Delivery": str(delivery.pk),
        **signed_headers(delivery.endpoint.secret, body),
    }
    timeout = float(setting("WEBHOOK_TIMEOUT"))
    try:
        response = httpx.post(url, content=body, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return None, f"timed out after {timeout:g} s"
    except httpx.HTTPError as exc:
        return None, f"could not connect: {exc}"
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    return response.status_code, f"HTTP {response.status_code}: {response.text[:200]}"


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
    delivery.save(update_fields=fields)
    if error:
        logger.info("webhook %s to %s: %s", delivery.pk, delivery.endpoint.url, error)
    return delivery


def deliveries_send(delivery_ids) -> dict[str, int]:
    """Attempt each of ``delivery_ids`` (the task enqueued after a write commits)."""
    counts: dict[str, int] = {}
    for delivery_id in delivery_ids:
        done = delivery_attempt(delivery_id)
        if done is not None:
            counts[done.status] = counts.get(done.status, 0) + 1
    return counts


def webhooks_send_due(*, tenant_id=None, counts) -> None:
    """The job: every delivery that is due (new ones whose task was lost, retries whose
    time has come, attempts whose worker died), oldest due first."""
    seen: set = set()
    while True:
        due = WebhookDelivery.objects.filter(status__in=DUE, next_attempt_at__lte=timezone.now())
        if tenant_id is not None:
            due = due.filter(tenant_id=tenant_id)
        ids = [
            pk
            for pk in due.order_by("next_attempt_at").values_list("pk", flat=True)[:SWEEP_BATCH]
            if pk not in seen
        ]
        if not ids:
            return
        seen.update(ids)
        for status, n in deliveries_send(ids).items():
            counts.add(status, n)
