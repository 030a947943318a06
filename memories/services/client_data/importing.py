"""Portability, the way back: a client recreated from its export (``client_data.export``).

Everything comes back with the states and timestamps the document holds, and with its
ids when it is this tenant's own export (``provenance``; fresh ones otherwise); what the
database computes from content (the dedup hash, the language and the search vector in
it, the attribute key) is computed again through the helpers ingest uses, and sealed
fields seal themselves, so an encrypted tenant stores the import as it stores anything
else. Vectors are not in the document: the memories are marked ``needs_embedding`` and
the reembed job makes them. One transaction: a document that does not fit leaves nothing
behind.
"""

from __future__ import annotations

from typing import cast

from django.db import DataError, IntegrityError, transaction
from django.db.models import Model

from memories.errors import Conflict, DomainError
from memories.languages import memory_language, text_config
from memories.models import (
    AuditEntry,
    Client,
    Event,
    Evidence,
    ItemDeletion,
    Memory,
    Relation,
    Session,
    Tenant,
)
from memories.services.client_data import provenance
from memories.services.client_data.document import IMPORTED, LISTS, document_parse
from memories.services.tenancy.audit import audit
from memories.services.write.records import (
    lexemes_count,
    search_vector_for,
    statement_hash,
    stored_attribute,
)


def client_import(*, tenant: Tenant, data, actor=None, actor_label: str = "") -> Client:
    """Recreate the client of export ``data`` in ``tenant`` (the caller has checked
    ``permissions.can_import_client``)."""
    doc = document_parse(data)
    ours = provenance.sealed_here(tenant, data.get("ids_seal"), doc)
    try:
        with transaction.atomic():
            client = _import(tenant, doc, ours=ours)
            counts = {name: len(doc[name]) for name in LISTS} | {"profile": int("profile" in doc)}
            audit(
                tenant_id=tenant.pk,
                actor=actor,
                actor_label=actor_label,
                action="client.imported",
                object_type="client",
                object_id=client.pk,
                data={"counts": counts},
            )
    except (IntegrityError, DataError) as exc:
        raise DomainError(f"The document does not fit: {str(exc).splitlines()[0]}") from exc
    return client


def _refuse_existing(tenant: Tenant, doc: dict) -> None:
    ref = doc["client"]["external_ref"]
    if Client.objects.filter(tenant=tenant, external_ref=ref).exists():
        raise Conflict(
            f"Client {ref!r} already exists in this tenant: erase it first, or import it "
            "elsewhere.",
            code="client_exists",
        )


def _ids_in_use(tenant: Tenant, doc: dict) -> tuple[list[str], bool]:
    """The lists of the document whose ids this tenant holds already, and whether another
    tenant holds any of them."""
    review_model = cast(type[Model], Client._meta.get_field("review_items").related_model)
    here, elsewhere = [], False
    for label, model, ids in (
        ("client", Client, [doc["client"]["id"]]),
        ("sessions", Session, [s["id"] for s in doc["sessions"]]),
        ("events", Event, [e["id"] for e in doc["events"]]),
        ("memories", Memory, [m["id"] for m in doc["memories"]]),
        ("review_items", review_model, [r["id"] for r in doc["review_items"]]),
    ):
        holders = set(model._default_manager.filter(pk__in=ids).values_list("tenant_id", flat=True))
        if tenant.pk in holders:
            here.append(label)
        elsewhere = elsewhere or bool(holders - {tenant.pk})
    return here, elsewhere


def _ids_for(tenant: Tenant, doc: dict, *, ours: bool) -> dict:
    """The document with the ids to store (``provenance``): its own when it is this
    tenant's export, fresh ones otherwise, whatever exists anywhere else."""
    if not ours:
        return provenance.with_fresh_ids(doc)
    here, elsewhere = _ids_in_use(tenant, doc)
    if here:
        raise Conflict(
            f"This tenant already holds ids of this document ({', '.join(here)}): the "
            "client still exists here, perhaps under another reference; erase it before "
            "importing it again.",
            code="ids_taken",
        )
    # Only an import made before documents were sealed can have put this tenant's ids in
    # another tenant: the client then comes back under fresh ids, as from anywhere else.
    return provenance.with_fresh_ids(doc) if elsewhere else doc


def _import(tenant: Tenant, doc: dict, *, ours: bool) -> Client:
    _refuse_existing(tenant, doc)
    doc = _ids_for(tenant, doc, ours=ours)
    c = doc["client"]
    client = Client.objects.create(
        id=c["id"],
        tenant=tenant,
        external_ref=c["external_ref"],
        display_name=c["display_name"],
        language=c["language"],
        created_at=c["created_at"],
        names=c["names"],
    )
    client.tenant = tenant  # sealed fields find the tenant (and memoise the key) here
    sessions = {
        s["id"]: Session(
            id=s["id"],
            tenant=tenant,
            client=client,
            external_ref=s["external_ref"],
            agent=s["agent"],
            project_id=s["project_id"],
            task_id=s["task_id"],
            run_id=s["run_id"],
            started_at=s["started_at"],
            last_event_at=s["last_event_at"],
        )
        for s in doc["sessions"]
    }
    Session.objects.bulk_create(sessions.values())
    Event.objects.bulk_create([_event(tenant, client, sessions, e) for e in doc["events"]])
    for m in doc["memories"]:
        _memory(tenant, client, m)
    lexemes_count([m["id"] for m in doc["memories"]])
    Evidence.objects.bulk_create(
        Evidence(memory_id=m["id"], event_id=ev["event"], role=ev["role"], action=ev["action"])
        for m in doc["memories"]
        for ev in m["evidence"]
    )
    Relation.objects.bulk_create(
        Relation(tenant=tenant, **_ids(r, "source", "target")) for r in doc["relations"]
    )
    if "profile" in doc:
        # django-stubs' plugin types this reverse one-to-one as its descriptor, not a relation.
        profile_model = Client._meta.get_field("profile").related_model  # type: ignore[attr-defined]
        profile_model.objects.create(tenant=tenant, client=client, **doc["profile"])
    for r in doc["review_items"]:
        client.review_items.create(tenant=tenant, **_ids(r, "memory", "other_memory"))
    # The document's trail is what the document says: kept, marked as imported (the
    # pages say so, and no imported entry can be undone), never taken for this tenant's own.
    AuditEntry.objects.bulk_create(
        AuditEntry(
            tenant=tenant,
            actor_label=a["actor"],
            action=a["action"],
            object_type=a["object_type"],
            object_id=a["object_id"],
            at=a["at"],
            data={IMPORTED: True},
        )
        for a in doc["audit"]
    )
    ItemDeletion.objects.bulk_create(
        ItemDeletion(client=client, key=d["key"], deleted_at=d["deleted_at"])
        for d in doc["item_deletions"]
    )
    return client


def _ids(row: dict, *names: str) -> dict:
    return {f"{k}_id" if k in names else k: v for k, v in row.items()}


def _event(tenant, client, sessions, e) -> Event:
    session = sessions.get(e["session"])
    return Event(
        id=e["id"],
        tenant=tenant,
        client=client,
        session=session,
        source=e["source"],
        speaker=e["speaker"],
        content=e["content"],
        external_id=e["external_id"],
        observed_at=e["observed_at"],
        received_at=e["received_at"],
        origin_agent=e["agent"],
        project_id=session.project_id if session else "",
        task_id=session.task_id if session else "",
        run_id=session.run_id if session else "",
        entities=e["entities"],
        metadata=e["metadata"],
        item_key=e["item_key"],
    )


def _memory(tenant, client, m) -> Memory:
    fields = {k: v for k, v in m.items() if k not in ("id", "session", "evidence")}
    words = f"{m['title']} {m['content']}"
    # Detected again, as ingest detects it: the document's may come from an older
    # memoryhub or another tenant, whose language it fell back to.
    language = memory_language(words, tenant.language)
    return Memory.objects.create(
        **fields
        | {
            "id": m["id"],
            "tenant": tenant,
            "client": client,
            "session_id": m["session"],
            "content_hash": statement_hash(tenant, m["content"]),
            "attribute": stored_attribute(tenant, m["attribute"]),
            "language": language,
            "search_vector": search_vector_for(
                words,
                text_config(language),
                client.pk,
                tenant=tenant,
                speaker=m["speaker"],
                context=m["context"],
            ),
            "last_seen_at": m["observed_at"],
            "evidence_count": len(m["evidence"]),
            "needs_embedding": tenant.vector_search_enabled,
        }
    )
