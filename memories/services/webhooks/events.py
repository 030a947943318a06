"""What each webhook event says, and the deliveries it makes: one function per event,
called by the service where the event happens, inside its transaction. The deliveries are
rows of that transaction (a rolled back write sends nothing) and are sent once it commits.

Every ``data`` names the client by its reference. What a client said (a memory's content,
a decision's reason) is included for plaintext tenants, and for encrypted ones only when
``Tenant.webhook_plaintext_allowed``; the envelope says which (``content_included``). IBANs
and account numbers in it are masked unless ``Tenant.account_numbers_shared``.
"""

from __future__ import annotations

from django.db import transaction

from memories.models import (
    Client,
    Evidence,
    Memory,
    Tenant,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from memories.services.secrets import accounts_masked


def content_included(tenant: Tenant) -> bool:
    return not tenant.encrypted or tenant.webhook_plaintext_allowed


def _outgoing(text: str, tenant: Tenant) -> str:
    """What a client said, as a delivery carries it: account numbers masked unless the
    tenant shares them (``secrets.accounts_masked``)."""
    return text if tenant.account_numbers_shared else accounts_masked(text)


def _memory(memory: Memory, *, content: bool, tenant: Tenant, **extra) -> dict:
    data = {
        "id": str(memory.pk),
        "kind": memory.kind,
        "category": memory.category,
        "tier": memory.tier,
        "status": memory.status,
        **extra,
    }
    if content:
        data["content"] = _outgoing(memory.content, tenant)
    return data


def _active_endpoints(tenant: Tenant) -> list[WebhookEndpoint]:
    return list(WebhookEndpoint.objects.filter(tenant_id=tenant.pk, active=True))


def _emit(
    tenant: Tenant,
    event: str,
    items: list[tuple[Client | None, dict]],
    endpoints: list[WebhookEndpoint] | None = None,
) -> list:
    """One delivery of each ``(client, data)`` per active endpoint of ``tenant`` that wants
    ``event`` (of ``endpoints``, when the caller has them already); sent after commit."""
    if not items:
        return []
    if endpoints is None:
        endpoints = _active_endpoints(tenant)
    endpoints = [e for e in endpoints if event in e.events]
    if not endpoints:
        return []
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                tenant_id=tenant.pk, endpoint=endpoint, client=client, event=event, payload=data
            )
            for endpoint in endpoints
            for client, data in items
        ]
    )
    ids = [str(d.pk) for d in deliveries]
    transaction.on_commit(lambda: _enqueue(ids))
    return deliveries


def _enqueue(delivery_ids: list[str]) -> None:
    from django_q.tasks import async_task

    async_task("memories.tasks.webhook_deliveries_send", delivery_ids)


_ADDED = {Evidence.Action.ADDED, Evidence.Action.EXTENDED}


def memories_stored(*, tenant: Tenant, results) -> None:
    """``memory.added`` and ``memory.updated`` for the events an ingest call stored (its
    ``IngestResult``s): one delivery per event and kind of change, listing its memories.
    Restatements (deduplicated) say nothing new; conflicts are ``conflict.opened``."""
    content = content_included(tenant)
    added: list[tuple[Client | None, dict]] = []
    updated: list[tuple[Client | None, dict]] = []
    for result in results:
        if not result.created:
            continue
        event = result.event
        head = {
            "client": event.client.external_ref,
            "event": {
                "id": str(event.pk),
                "external_id": event.external_id,
                "session": event.session.external_ref if event.session_id else None,
                "observed_at": event.observed_at.isoformat(),
            },
        }
        for wanted, into in ((_ADDED, added), ({Evidence.Action.UPDATED}, updated)):
            memories = [
                _memory(
                    o.memory,
                    content=content,
                    tenant=tenant,
                    action=o.action,
                    related={"id": str(o.related.pk), "status": o.related.status}
                    if o.related is not None
                    else None,
                )
                for o in result.outcomes
                if o.action in wanted
            ]
            if memories:
                into.append((event.client, {**head, "memories": memories}))
    if added or updated:
        endpoints = _active_endpoints(tenant)  # one query for both events
        _emit(tenant, WebhookEvent.MEMORY_ADDED, added, endpoints)
        _emit(tenant, WebhookEvent.MEMORY_UPDATED, updated, endpoints)


def conflicts_opened(*, items) -> None:
    """``conflict.opened`` for review items just opened (``ReviewItem``s of one tenant)."""
    by_tenant: dict = {}
    for item in items:
        by_tenant.setdefault(item.tenant_id, []).append(item)
    for tenant_id, opened in by_tenant.items():
        tenant = Tenant.objects.get(pk=tenant_id)
        content = content_included(tenant)
        _emit(
            tenant,
            WebhookEvent.CONFLICT_OPENED,
            [
                (
                    item.client,
                    {
                        "client": item.client.external_ref,
                        "review_item": {"id": str(item.pk), "type": item.type},
                        "memory": _memory(item.memory, content=content, tenant=tenant),
                        "other_memory": _memory(item.other_memory, content=content, tenant=tenant),
                    },
                )
                for item in opened
            ],
        )


def review_decided(*, item) -> None:
    """``review.decided`` for a decided review item (a conflict or a promotion)."""
    tenant = item.tenant
    review = {
        "id": str(item.pk),
        "type": item.type,
        "state": item.state,
        "decision": item.decision,
        "memory": str(item.memory_id),
        "other_memory": str(item.other_memory_id) if item.other_memory_id else None,
        "decided_by": item.decided_by.get_username() if item.decided_by else None,
        "decided_at": item.decided_at.isoformat() if item.decided_at else None,
    }
    if content_included(tenant):
        review["reason"] = _outgoing(item.reason, tenant)
    data = {"client": item.client.external_ref, "review_item": review}
    _emit(tenant, WebhookEvent.REVIEW_DECIDED, [(item.client, data)])


def client_erased(*, tenant: Tenant, client_id, external_ref: str, counts: dict) -> None:
    """``client.erased``: the reference the receiver erases on its side, and what went.
    The delivery belongs to no client (the client is gone); once it is delivered or given
    up its payload is cleared, so the reference does not outlive the erasure."""
    data = {"client": external_ref, "client_id": str(client_id), "counts": counts}
    _emit(tenant, WebhookEvent.CLIENT_ERASED, [(None, data)])
