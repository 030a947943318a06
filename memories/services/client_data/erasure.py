"""The right to be forgotten: one call removes everything memoryhub holds about a client.

Events, sessions, memories, their evidence, relations, vectors and reads, the profile
and the review items (every model that hangs off the client, whichever app it lives in:
the deletion cascades through Django's collector) go through the ADD-only door
(``content_rewrite``); the client's data key is destroyed with them, so a backup taken
earlier holds only text nobody can open. The audit entries about those objects go too.
What stays is one tombstone: the client's id (a random UUID that means nothing once the
row is gone), who erased it, when, and how many rows went, never a reference or a word.
"""

from __future__ import annotations

from django.db import connection, transaction

from memories.crypto import keys
from memories.db import content_rewrite
from memories.models import AuditEntry, Client
from memories.services.tenancy.audit import audit
from memories.services.webhooks import events as webhook_events
from memories.services.write.records import client_lexemes_forget
from memoryhub.observability import traces


def client_erase(*, client: Client, actor=None, actor_label: str = "") -> dict:
    """Erase ``client`` (the caller has checked ``permissions.can_erase_client``)."""
    with traces.memory_operation("delete_memory", store=client.pk) as span:
        counts = _erased(client, actor, actor_label)
        span.set_attribute("gen_ai.memory.record.count", counts.get("memory", 0))
    return counts


def _erased(client: Client, actor, actor_label: str) -> dict:
    with transaction.atomic():
        with connection.cursor() as cursor:
            # The writers' per-client lock (services.ingest): no event lands mid-erasure.
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [str(client.pk)]
            )
        client = Client.objects.select_for_update().select_related("tenant").get(pk=client.pk)
        ids = {str(client.pk)}
        for related in ("memories", "events", "sessions", "review_items"):
            ids |= {str(pk) for pk in getattr(client, related).values_list("pk", flat=True)}
        client_id, tenant, external_ref = client.pk, client.tenant, client.external_ref
        sequence = client.webhook_sequence + 1  # client.erased comes after every other event
        keys.forget_client(client_id)
        with content_rewrite():
            _, per_model = client.delete()
        client_lexemes_forget([client_id])
        audit_deleted, _ = AuditEntry.objects.filter(
            tenant_id=tenant.pk, object_id__in=ids
        ).delete()
        counts = {
            label.split(".")[-1].lower(): n for label, n in sorted(per_model.items()) if n
        } | {"auditentry": audit_deleted}
        audit(
            tenant_id=tenant.pk,
            actor=actor,
            actor_label=actor_label,
            action="client.erased",
            object_type="client",
            object_id=client_id,
            data={"counts": counts, "encrypted": tenant.encrypted},
        )
        webhook_events.client_erased(
            tenant=tenant,
            client_id=client_id,
            external_ref=external_ref,
            counts=counts,
            sequence=sequence,
        )
    return counts
