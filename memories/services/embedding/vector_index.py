"""Embedding spaces and their HNSW indexes (see memories.models.embeddings)."""

from __future__ import annotations

from django.db import connection, transaction

from memories.models import EmbeddingSpace, MemoryEmbedding

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64


def embedding_index_ensure(*, space: EmbeddingSpace) -> None:
    """Create the partial HNSW index of ``space`` if it is missing (idempotent)."""
    sql = (
        f'CREATE INDEX IF NOT EXISTS "{space.index_name}" ON memories_memoryembedding '
        f"USING hnsw ({space.indexed_expression} {space.opclass}) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
        f"WHERE space_id = {int(space.pk)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)


@transaction.atomic
def embedding_space_get_or_create(*, provider: str, model: str, dimension: int) -> EmbeddingSpace:
    # One creator at a time: two concurrent CREATE INDEX IF NOT EXISTS of one name may both
    # try to add it to the catalogue.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended('memoryhub:space', 0))")
    space, _ = EmbeddingSpace.objects.get_or_create(
        provider=provider, model=model, defaults={"dimension": dimension}
    )
    if space.dimension != dimension:
        raise ValueError(
            f"{provider}/{model} is registered with {space.dimension} dimensions, got {dimension}"
        )
    embedding_index_ensure(space=space)
    return space


def vectors_store(memories, space, vectors) -> None:
    """One vector per memory in ``space``; a memory that already has one there keeps it."""
    MemoryEmbedding.objects.bulk_create(
        [
            MemoryEmbedding(
                memory=m, space=space, tenant_id=m.tenant_id, client_id=m.client_id, vector=v
            )
            for m, v in zip(memories, vectors, strict=True)
        ],
        ignore_conflicts=True,
    )
