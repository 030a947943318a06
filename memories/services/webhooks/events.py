"""What each webhook event says, and the deliveries it makes: one function per event,
called by the service where the event happens, inside its transaction. The deliveries are
rows of that transaction (a rolled back write sends nothing) and are sent once it commits.

Every event about a client has a sequence number among that client's events (1, 2, 3…),
taken from ``Client.webhook_sequence`` with an UPDATE that holds the client's row until the
transaction commits: a later number was committed later, and every endpoint sees the same
number for one event. Deliveries may still arrive out of order (a retry, two workers); the
number is what a receiver orders by.

Every ``data`` names the client by its reference. What a client said (a memory's content,
a decision's reason) is included for plaintext tenants, and for encrypted ones only when
``Tenant.webhook_plaintext_allowed``; the envelope says which (``content_included``). IBANs
and account numbers in it are masked unless ``Tenant.account_numbers_shared``.
"""

from __future__ import annotations

from django.db import connection, transaction

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
    if tenant.webhooks_active is False:  # read with the API key: none, no need to ask
        return []
    return list(WebhookEndpoint.objects.filter(tenant_id=tenant.pk, active=True))


Item = tuple[Client | None, dict]


def _emit(
    tenant: Tenant,
    event: str,
    items: list[Item],
    endpoints: list[WebhookEndpoint] | None = None,
    sequences: list[int | None] | None = None,
) -> list:
    """One delivery of each ``(client, data)`` per active endpoint of ``tenant`` that wants
    ``event`` (of ``endpoints``, when the caller has them already); sent after commit.
    Each item takes its client's next sequence number unless ``sequences`` gives them."""
    if not items:
        return []
    if endpoints is None:
        endpoints = _active_endpoints(tenant)
    endpoints = [e for e in endpoints if event in e.events]
    if not endpoints:
        return []
    if sequences is None:
        sequences = _sequences_taken([client for client, _ in items])
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                tenant_id=tenant.pk,
                endpoint=endpoint,
                client=client,
                event=event,
                sequence=number,
                payload=data,
            )
            for endpoint in endpoints
            for (client, data), number in zip(items, sequences, strict=True)
        ]
    )
    ids = [str(d.pk) for d in deliveries]
    transaction.on_commit(lambda: _enqueue(ids))
    return deliveries


def _sequences_taken(clients: list[Client | None]) -> list[int | None]:
    """The next sequence numbers of these clients, one per item in its order (None for
    none): one UPDATE per client, in id order like every writer's locks, which holds the
    client's row until commit."""
    wanted: dict = {}
    for client in clients:
        if client is not None:
            wanted[client.pk] = wanted.get(client.pk, 0) + 1
    first: dict = {}
    with connection.cursor() as cursor:
        for client_id in sorted(wanted, key=str):
            cursor.execute(
                f"UPDATE {Client._meta.db_table} SET webhook_sequence = webhook_sequence + %s "  # noqa: S608
                "WHERE id = %s RETURNING webhook_sequence",
                [wanted[client_id], client_id],
            )
            first[client_id] = cursor.fetchone()[0] - wanted[client_id] + 1
    numbers: list[int | None] = []
    for client in clients:
        if client is None:
            numbers.append(None)
        else:
            numbers.append(first[client.pk])
            first[client.pk] += 1
    return numbers


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
        subscribed = {e for endpoint in endpoints for e in endpoint.events}
        added = added if WebhookEvent.MEMORY_ADDED in subscribed else []
        updated = updated if WebhookEvent.MEMORY_UPDATED in subscribed else []
        # One allocation for both, so an event's "added" comes before its "updated".
        numbers = _sequences_taken([client for client, _ in added + updated])
        _emit(tenant, WebhookEvent.MEMORY_ADDED, added, endpoints, numbers[: len(added)])
        _emit(tenant, WebhookEvent.MEMORY_UPDATED, updated, endpoints, numbers[len(added) :])


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


def client_erased(
    *, tenant: Tenant, client_id, external_ref: str, counts: dict, sequence: int
) -> None:
    """``client.erased``: the reference the receiver erases on its side, and what went.
    The delivery belongs to no client (the client is gone) but has the number after the
    client's last (``sequence``, read under its lock before the erasure); once it is
    delivered or given up its payload is cleared, so the reference does not outlive it."""
    data = {"client": external_ref, "client_id": str(client_id), "counts": counts}
    _emit(tenant, WebhookEvent.CLIENT_ERASED, [(None, data)], sequences=[sequence])
