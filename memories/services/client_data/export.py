"""Portability: everything memoryhub holds about one client, as one JSON document.

Read through the client's own relations (so profiles and review items come along without
``memories`` importing their apps), opened in memory for the caller the view has already
checked (``permissions.client_for_export``). The format is versioned.
"""

from __future__ import annotations

from django.utils import timezone

from memories.models import AuditEntry, Client, Relation
from memories.services.client_data import provenance

FORMAT = "memoryhub.client-export/1"
# The mark on an audit entry that came with an imported document: exported, the entry says
# so, and is marked so again wherever the document is imported.
IMPORTED = "imported"


def _at(value) -> str | None:
    return value.isoformat() if value else None


def _id(value) -> str | None:
    return str(value) if value is not None else None


def client_export(*, client: Client) -> dict:
    sessions = list(client.sessions.order_by("started_at", "pk"))
    events = list(client.events.order_by("observed_at", "pk"))
    memories = list(client.memories.order_by("created_at", "pk").prefetch_related("evidence"))
    ids = {m.pk for m in memories}
    # In one query, in the order of their source memories (then their own).
    relations = list(
        Relation.objects.filter(source__client=client).order_by(
            "source__created_at", "source_id", "created_at", "pk"
        )
    )
    profile = getattr(client, "profile", None)  # reverse one-to-one: None when missing
    object_ids = {str(client.pk)} | {str(i) for i in ids} | {str(e.pk) for e in events}
    review_items = list(client.review_items.order_by("created_at", "pk"))
    object_ids |= {str(r.pk) for r in review_items}
    audit = AuditEntry.objects.filter(tenant_id=client.tenant_id, object_id__in=object_ids)
    document = {
        "format": FORMAT,
        "exported_at": _at(timezone.now()),
        "tenant": client.tenant.slug,
        "ids_seal": "",  # below, once the document holds every id
        "client": {
            "id": str(client.pk),
            "external_ref": client.external_ref,
            "display_name": client.display_name,
            "language": client.language,
            "created_at": _at(client.created_at),
            "names": list(client.names),
        },
        "sessions": [
            {
                "id": str(s.pk),
                "external_ref": s.external_ref,
                "agent": s.agent,
                "project_id": s.project_id,
                "task_id": s.task_id,
                "run_id": s.run_id,
                "started_at": _at(s.started_at),
                "last_event_at": _at(s.last_event_at),
            }
            for s in sessions
        ],
        "events": [
            {
                "id": str(e.pk),
                "session": _id(e.session_id),
                "source": e.source,
                "speaker": e.speaker,
                "content": e.content,
                "external_id": e.external_id,
                "observed_at": _at(e.observed_at),
                "received_at": _at(e.received_at),
                "agent": e.origin_agent,
                "entities": e.entities,
                "metadata": e.metadata,
                "item_key": e.item_key,
            }
            for e in events
        ],
        "memories": [
            {
                "id": str(m.pk),
                "session": _id(m.session_id),
                "kind": m.kind,
                "category": m.category,
                "title": m.title,
                "content": m.content,
                "attribute": m.attribute,
                "attribute_value": m.attribute_value,
                "negated": m.negated,
                "speaker": m.speaker,
                "subject": m.subject,
                "occurred_on": m.occurred_on.isoformat() if m.occurred_on else None,
                "occurred_precision": m.occurred_precision,
                "context": m.context,
                "topic": m.topic,
                "topic_probability": m.topic_probability,
                "topics": m.topics,
                "language": m.language,
                "tier": m.tier,
                "status": m.status,
                "status_reason": m.status_reason,
                "confidence": m.confidence,
                "importance": m.importance,
                "tags": m.tags,
                "metadata": m.metadata,
                "observed_at": _at(m.observed_at),
                "created_at": _at(m.created_at),
                "invalidated_at": _at(m.invalidated_at),
                "expires_at": _at(m.expires_at),
                "source_kind": m.source_kind,
                "source_ref": m.source_ref,
                "evidence": [
                    {"event": str(e.event_id), "role": e.role, "action": e.action}
                    for e in sorted(m.evidence.all(), key=lambda e: (e.created_at, e.pk))
                ],
            }
            for m in memories
        ],
        "relations": [
            {
                "source": str(r.source_id),
                "target": str(r.target_id),
                "type": r.type,
                "confidence": r.confidence,
                "created_at": _at(r.created_at),
            }
            for r in relations
        ],
        "profile": {
            "static": profile.static,
            "dynamic": profile.dynamic,
            "refreshed_at": _at(profile.refreshed_at),
        }
        if profile is not None
        else None,
        "review_items": [
            {
                "id": str(r.pk),
                "type": r.type,
                "state": r.state,
                "memory": str(r.memory_id),
                "other_memory": _id(r.other_memory_id),
                "summary": r.summary,
                "decision": r.decision,
                "reason": r.reason,
                "created_at": _at(r.created_at),
                "decided_at": _at(r.decided_at),
            }
            for r in review_items
        ],
        "audit": [
            {
                "action": a.action,
                "object_type": a.object_type,
                "object_id": a.object_id,
                "actor": a.actor_label,
                "at": _at(a.at),
                IMPORTED: bool(a.data.get(IMPORTED)),
            }
            for a in audit.order_by("at", "pk")
        ],
        "item_deletions": [
            {"key": d.key, "deleted_at": _at(d.deleted_at)}
            for d in client.item_deletions.order_by("deleted_at", "pk")
        ],
    }
    # Vouches for the ids to this tenant only: an import anywhere else gets fresh ones.
    document["ids_seal"] = provenance.ids_seal(client.tenant_id, provenance.document_ids(document))
    return document
