"""Embed the memories that were stored without a vector (every provider was down)."""

from __future__ import annotations

from django.db import transaction

from memories.models import Memory
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


def reembed_job(*, tenant_id=None, counts) -> None:
    """Every waiting memory, a batch at a time, until none is left or providers fail; then
    the memories of tenants still working in a previous model's space, with the configured
    model (``spaces.backfill``), until they all have a vector in its space."""
    while True:
        result = memories_reembed(limit=500, tenant_id=tenant_id)
        counts.add("embedded", result["embedded"])
        if result["failed"]:
            counts.add("failed", result["failed"])
            return
        if not result["embedded"]:
            break
    while True:
        moved = spaces.backfill(limit=500, tenant_id=tenant_id)
        counts.add("backfilled", moved["embedded"])
        counts.add("moved_to_new_space", moved["moved"])
        if moved["failed"]:
            counts.add("failed", moved["failed"])
            return
        if not moved["embedded"]:
            return


def memories_embed_now(memory_ids) -> None:
    """Embed memories a job has just written; when no provider answers they wait for the
    reembed job like any other."""
    ids = list(memory_ids)
    for start in range(0, len(ids), 500):
        memories_reembed(limit=500, memory_ids=ids[start : start + 500])
