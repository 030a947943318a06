"""Embed the memories that were stored without a vector (every provider was down), and
the messages they were said in that have none in the space their tenant works in."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, OuterRef

from memories.conf import setting
from memories.models import Event, EventEmbedding, Evidence, Memory, Tenant
from memories.services.embedding import providers as embeddings
from memories.services.embedding import spaces
from memories.services.embedding.vector_index import vectors_store


def memories_reembed(*, limit: int = 500, tenant_id=None, memory_ids=None) -> dict:
    """Embed up to ``limit`` waiting memories (of ``memory_ids`` when given). Concurrent runs
    claim different rows (``skip_locked``); a run that fails to embed leaves its rows
    waiting for the next."""
    with transaction.atomic():
        waiting = Memory.objects.filter(
            needs_embedding=True, tenant__vector_search_enabled=True
        ).order_by("created_at")
        if tenant_id is not None:
            waiting = waiting.filter(tenant_id=tenant_id)
        if memory_ids is not None:
            waiting = waiting.filter(pk__in=list(memory_ids))
        batch = list(
            waiting.select_for_update(skip_locked=True, of=("self",)).only(
                "id", "tenant_id", "client_id", "title", "content"
            )[:limit]
        )
        if not batch:
            return {"embedded": 0, "failed": 0}
        try:
            result = embeddings.get_chain().embed([m.content for m in batch])
        except embeddings.EmbeddingError:
            return {"embedded": 0, "failed": len(batch)}
        vectors_store(batch, embeddings.space_for(result), result.vectors)
        Memory.objects.filter(pk__in=[m.pk for m in batch]).update(needs_embedding=False)
    return {"embedded": len(batch), "failed": 0, "space": f"{result.provider}/{result.model}"}


def messages_embed(*, limit: int = 500, tenant_id=None) -> dict:
    """Embed up to ``limit`` messages that yielded memories and have no vector in the space
    their tenant works in (stored before messages had vectors, or while the provider was
    down, or before the tenant moved to a new model's space): what ingest would have
    stored (``prepare.message_text``, its secrets withheld). None when ``MESSAGE_VECTORS`` is
    off."""
    from memories.services.secrets import withheld
    from memories.services.write.prepare import message_text

    counts = {"embedded": 0, "failed": 0}
    if not setting("MESSAGE_VECTORS"):
        return counts
    tenants = Tenant.objects.filter(vector_search_enabled=True)
    if tenant_id is not None:
        tenants = tenants.filter(pk=tenant_id)
    for tenant in tenants:
        chain = spaces.working_chain(tenant)
        if not chain.providers:
            continue
        first = chain.providers[0]
        space = embeddings.known_space(first.space_provider, first.model)
        if space is None:
            continue  # no memory of it has a vector in that space yet: nothing to read by
        with transaction.atomic():
            said = Evidence.objects.filter(event_id=OuterRef("pk")).exclude(
                role=Evidence.Role.CONSOLIDATED
            )
            vector = EventEmbedding.objects.filter(event_id=OuterRef("pk"), space=space)
            batch = list(
                Event.objects.filter(tenant=tenant)
                .filter(Exists(said), ~Exists(vector))
                .order_by("received_at", "id")
                .select_for_update(skip_locked=True, of=("self",))
                .only("id", "tenant_id", "client_id", "content")[: limit - counts["embedded"]]
            )
            if not batch:
                continue
            try:
                result = chain.embed([message_text(withheld(e.content)[0]) for e in batch])
            except embeddings.EmbeddingError:
                counts["failed"] += len(batch)
                return counts
            if (result.provider, result.model) != (space.provider, space.model):
                counts["failed"] += len(batch)  # a fallback answered: not this space's
                return counts
            EventEmbedding.objects.bulk_create(
                [
                    EventEmbedding.of(e, space, v)
                    for e, v in zip(batch, result.vectors, strict=True)
                ],
                ignore_conflicts=True,
            )
            counts["embedded"] += len(batch)
        if counts["embedded"] >= limit:
            break
    return counts


def reembed_job(*, tenant_id=None, counts) -> None:
    """Every waiting memory, a batch at a time, until none is left or providers fail; then
    the memories of tenants still working in a previous model's space, with the configured
    model (``spaces.backfill``), until they all have a vector in its space; then the
    messages without a vector in their tenant's space (``messages_embed``)."""
    steps = (
        (memories_reembed, {"embedded": "embedded"}),
        (spaces.backfill, {"embedded": "backfilled", "moved": "moved_to_new_space"}),
        (messages_embed, {"embedded": "messages"}),
    )
    for step, tallies in steps:
        while True:
            result = step(limit=500, tenant_id=tenant_id)
            for key, label in tallies.items():
                counts.add(label, result[key])
            if result["failed"]:
                counts.add("failed", result["failed"])
                return  # providers fail: the next run goes on
            if not result["embedded"]:
                break


def memories_embed_now(memory_ids) -> None:
    """Embed memories a job has just written; when no provider answers they wait for the
    reembed job like any other."""
    ids = list(memory_ids)
    for start in range(0, len(ids), 500):
        memories_reembed(limit=500, memory_ids=ids[start : start + 500])
