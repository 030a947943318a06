"""Which embedding space a tenant works in, and moving it to a new model's.

Vectors of two models are not comparable. When the configured model changes (the offline
default became multilingual-e5-small; an operator switches to Voyage), a tenant's memories
have vectors of the old model only. Until the new model's space holds them all, the tenant
keeps working in the old one (``Tenant.embedding_space``): its searches, the duplicate and
extension tests of its writes, are embedded with the old model, and its new memories get
old-model vectors too. The reembed job (``backfill``) meanwhile embeds the tenant's
memories with the configured model, a batch at a time, and once none lacks a vector in its
space, moves the tenant to it (``embedding_space`` back to empty: the configured model's).
A write racing that move may store one old-model vector after it: the next run embeds it.

A tenant whose old model cannot be called any more (a remote provider without its key)
works in the configured model's space at once: its memories without a new vector are found
by full text alone until the job reaches them.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Exists, OuterRef

from memories.models import EmbeddingSpace, Memory, MemoryEmbedding, Status, Tenant
from memories.services.embedding import providers as embeddings
from memories.services.embedding.vector_index import vectors_store

logger = logging.getLogger(__name__)


def primary_spec(chain: embeddings.EmbeddingChain) -> tuple[str, str] | None:
    """(space provider, model) of the configured chain's first provider."""
    if not chain.providers:
        return None
    first = chain.providers[0]
    return first.space_provider, first.model


def is_primary(space: EmbeddingSpace, chain: embeddings.EmbeddingChain) -> bool:
    return primary_spec(chain) == (space.provider, space.model)


def working_chain(tenant: Tenant) -> embeddings.EmbeddingChain:
    """The chain that embeds ``tenant``'s searches and writes: the configured one, or while
    the tenant is moving to it, its previous model alone."""
    chain = embeddings.get_chain()
    space_id = tenant.embedding_space_id
    if space_id is None:
        return chain
    cached = chain.previous.get(space_id)
    if cached is not None:
        return cached
    space = EmbeddingSpace.objects.get(pk=space_id)
    previous = None if is_primary(space, chain) else _provider_of(space)
    if previous is None:
        working = chain
    else:
        working = embeddings.EmbeddingChain([previous], **chain.breaker_options)
    chain.previous[space_id] = working
    return working


def _provider_of(space: EmbeddingSpace) -> embeddings.Provider | None:
    for name, spec in embeddings.CATALOGUE.items():
        if (spec.space or name, spec.model) == (space.provider, space.model):
            provider = embeddings.build_provider(name)
            if provider is None:
                logger.warning(
                    "embedding space %s: its provider %s has no key; its tenants search the "
                    "configured model's space while it is filled",
                    space,
                    name,
                )
            return provider
    return None


def missing(tenant_id, space: EmbeddingSpace | None):
    """The tenant's memories without a vector in ``space`` (all of them: none): the live
    ones and the versions a search ``as_of`` an earlier day can return."""
    live = Memory.objects.filter(tenant_id=tenant_id).exclude(
        status__in=(Status.DELETED, Status.EXPIRED)
    )
    if space is None:
        return live
    vector = MemoryEmbedding.objects.filter(memory_id=OuterRef("pk"), space=space)
    return live.filter(~Exists(vector))


def backfill(*, limit: int = 500, tenant_id=None) -> dict:
    """Embed with the configured model up to ``limit`` memories of tenants still working in
    another space; move each tenant whose memories all have one. Counts by outcome."""
    chain = embeddings.get_chain()
    spec = primary_spec(chain)
    counts = {"embedded": 0, "failed": 0, "moved": 0}
    if spec is None:
        return counts
    moving = Tenant.objects.filter(embedding_space__isnull=False, vector_search_enabled=True)
    if tenant_id is not None:
        moving = moving.filter(pk=tenant_id)
    if not moving.exists():
        return counts
    # Its space and index are made in a transaction of their own, before the batches'.
    first = chain.providers[0]
    space = embeddings.space_for(
        embeddings.Embedded(first.space_provider, first.model, first.dimension, vectors=[])
    )
    for tenant in moving:
        if tenant.embedding_space_id == space.pk:
            _move(tenant, counts)
            continue
        with transaction.atomic():
            batch = list(
                missing(tenant.pk, space)
                .order_by("created_at")
                .select_for_update(skip_locked=True, of=("self",))
                .only("id", "tenant_id", "client_id", "content")[: limit - counts["embedded"]]
            )
            if batch:
                try:
                    result = chain.embed([m.content for m in batch])
                except embeddings.EmbeddingError:
                    counts["failed"] += len(batch)
                    return counts
                if (result.provider, result.model) != spec:
                    # A fallback answered: its vectors are not the configured model's.
                    counts["failed"] += len(batch)
                    return counts
                vectors_store(batch, space, result.vectors)
                counts["embedded"] += len(batch)
        if not missing(tenant.pk, space).exists():
            _move(tenant, counts)
        if counts["embedded"] >= limit:
            break
    return counts


def _move(tenant: Tenant, counts: dict) -> None:
    Tenant.objects.filter(pk=tenant.pk).update(embedding_space=None)
    counts["moved"] += 1
    logger.info("tenant %s now searches the configured embedding model's space", tenant.slug)
