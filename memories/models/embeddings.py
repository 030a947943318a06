"""Vectors for memories, one row per (memory, embedding space).

Models differ in dimension (384 local, 1024 Voyage, 1536/3072 OpenAI), so the vector
column has no fixed dimension and each space gets its own partial HNSW index on an
expression cast to that dimension (``halfvec`` above pgvector's 2,000-dimension limit for
``vector``). A query uses the index only when it repeats the same expression and the
same ``space_id`` predicate: ``EmbeddingSpace.distance_sql`` is the one place that
spells it.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from pgvector.django import VectorField

from memories.models.records import Event, Memory
from memories.models.tenancy import Client, Tenant

VECTOR_HNSW_MAX_DIMENSIONS = 2000
HALFVEC_HNSW_MAX_DIMENSIONS = 4000


def vector_literal(vector) -> str:
    """A vector in pgvector's text form, to pass as a statement parameter (and cast there,
    as ``distance_sql`` does): seven significant digits, what a float32 holds."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


class EmbeddingSpace(models.Model):
    """One embedding model: vectors are only comparable inside the same space."""

    provider = models.CharField(max_length=32)
    model = models.CharField(max_length=100)
    dimension = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "model"], name="embedding_space_unique"),
            models.CheckConstraint(
                condition=models.Q(dimension__gte=1, dimension__lte=HALFVEC_HNSW_MAX_DIMENSIONS),
                name="embedding_space_indexable_dimension",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider}/{self.model} ({self.dimension})"

    @property
    def vector_type(self) -> str:
        if self.dimension <= VECTOR_HNSW_MAX_DIMENSIONS:
            return f"vector({self.dimension})"
        return f"halfvec({self.dimension})"

    @property
    def opclass(self) -> str:
        base = "vector" if self.dimension <= VECTOR_HNSW_MAX_DIMENSIONS else "halfvec"
        return f"{base}_cosine_ops"

    @property
    def index_name(self) -> str:
        return f"memoryembedding_hnsw_space_{self.pk}"

    @property
    def indexed_expression(self) -> str:
        return f"(vector::{self.vector_type})"

    def distance_sql(self, param: str = "%s", *, column: str = "vector") -> str:
        """Cosine distance between the stored vector (``column``) and a query parameter,
        index-usable (for the memories' own column)."""
        return f"({column}::{self.vector_type}) <=> ({param})::{self.vector_type}"


class MemoryEmbedding(models.Model):
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="embeddings")
    space = models.ForeignKey(EmbeddingSpace, on_delete=models.PROTECT, related_name="vectors")
    # Denormalised so that filtered nearest-neighbour queries stay on one table.
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="+")
    vector = VectorField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "space"], name="memory_embedding_unique")
        ]
        indexes = [models.Index(fields=["space", "client"])]

    def __str__(self) -> str:
        return f"{self.memory_id} in {self.space}"


class EventEmbedding(models.Model):
    """The vector of a whole message, in a space: what a memory said in it was said about.
    A memory is often one sentence of a longer message ("…and it's currently at 180 ms under
    20 concurrent requests"); search reads the message's meaning beside the memory's own
    (``retrieval.statement``, the ``context`` component). No index of its own beyond the
    pair: it is looked up by event, never searched by nearness."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="embeddings")
    space = models.ForeignKey(EmbeddingSpace, on_delete=models.PROTECT, related_name="+")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="+")
    vector = VectorField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "space"], name="event_embedding_unique")
        ]

    def __str__(self) -> str:
        return f"event {self.event_id} in {self.space}"

    @classmethod
    def of(cls, event: Event, space: EmbeddingSpace, vector) -> EventEmbedding:
        """``event``'s vector in ``space``, with the event's tenant and client."""
        return cls(
            event=event,
            space=space,
            tenant_id=event.tenant_id,
            client_id=event.client_id,
            vector=vector,
        )
