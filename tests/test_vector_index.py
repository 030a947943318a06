"""Each embedding space gets an HNSW index that a nearest-neighbour query really uses."""

import pytest
from django.db import DataError, connection, transaction

from memories.services.embedding.vector_index import embedding_space_get_or_create
from tests.support import factories

pytestmark = pytest.mark.django_db


def _plan(space, client_id) -> str:
    """The plan when sorting is ruled out: only an index that matches the query's distance
    expression and space predicate can give the order, so its presence proves it usable.
    Whether the planner prefers it to an exact scan of one client is a cost question that
    the read path settles."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
        query = [0.5] * space.dimension
        cursor.execute(
            "EXPLAIN SELECT memory_id FROM memories_memoryembedding "
            f"WHERE space_id = %s AND client_id = %s ORDER BY {space.distance_sql()} LIMIT 10",
            [space.pk, client_id, str(query)],
        )
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize(("dimension", "type_"), [(384, "vector"), (3072, "halfvec")])
def test_space_index_is_used_by_the_nearest_neighbour_query(dimension, type_):
    space = embedding_space_get_or_create(
        provider="test", model=f"m{dimension}", dimension=dimension
    )
    assert space.vector_type == f"{type_}({dimension})"
    memory = factories.MemoryFactory.create()
    factories.MemoryEmbeddingFactory.create(memory=memory, space=space)
    plan = _plan(space, memory.client_id)
    assert space.index_name in plan
    assert "Index Scan" in plan


def test_ensure_is_idempotent_and_rejects_a_dimension_change():
    first = embedding_space_get_or_create(provider="test", model="m", dimension=8)
    again = embedding_space_get_or_create(provider="test", model="m", dimension=8)
    assert first.pk == again.pk
    with pytest.raises(ValueError, match="registered with 8 dimensions"):
        embedding_space_get_or_create(provider="test", model="m", dimension=16)


def test_a_vector_of_the_wrong_dimension_is_refused_by_the_index():
    space = embedding_space_get_or_create(provider="test", model="m", dimension=8)
    memory = factories.MemoryFactory.create()
    with pytest.raises(DataError), transaction.atomic():
        factories.MemoryEmbeddingFactory.create(memory=memory, space=space, vector=[1.0, 0.0, 0.0])


def test_two_models_can_embed_the_same_memory():
    memory = factories.MemoryFactory.create()
    small = embedding_space_get_or_create(provider="local", model="a", dimension=4)
    large = embedding_space_get_or_create(provider="openai", model="b", dimension=2500)
    factories.MemoryEmbeddingFactory.create(memory=memory, space=small)
    factories.MemoryEmbeddingFactory.create(memory=memory, space=large)
    assert memory.embeddings.count() == 2


@pytest.mark.parametrize("dimension", [384, 3072])
def test_a_statement_finds_its_nearest_stored_memories_in_either_vector_type(dimension):
    from memories.services.write.relate import Neighbours

    space = embedding_space_get_or_create(
        provider="test", model=f"n{dimension}", dimension=dimension
    )
    near, far = [1.0] + [0.0] * (dimension - 1), [0.0] * (dimension - 1) + [1.0]
    same = factories.MemoryFactory.create()
    other = factories.MemoryFactory.create(client=same.client)
    factories.MemoryEmbeddingFactory.create(memory=same, space=space, vector=near)
    factories.MemoryEmbeddingFactory.create(memory=other, space=space, vector=far)
    said = [0.9, 0.1] + [0.0] * (dimension - 2)

    found = Neighbours.load(space=space, wanted=[(7, same.client_id, said)]).of(
        7, same.client_id, said
    )

    assert [memory.pk for memory, _ in found] == [same.pk]
    assert found[0][1] == pytest.approx(0.9 / (0.82**0.5), abs=1e-3)
