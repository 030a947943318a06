"""The vector candidates of a search: the memories nearest the query's vector, as the
quick statement finds them (an HNSW scan, then the live ones) or the thorough one does
(filtered while scanning, and compared one by one should the index come back short). Parts
of ``statement.candidates_statement``.
"""

from __future__ import annotations

from memories.models import EmbeddingSpace
from memories.services.retrieval.query import Search
from memories.services.retrieval.sql import Sql, sql

# Where the places that compare with the query vector read it: it travels once, as the
# CTE query_vector (an InitPlan: the HNSW scan still orders by it).
AGAINST = Sql("(SELECT v FROM query_vector)")


def distance(space: EmbeddingSpace) -> Sql:
    return Sql(space.distance_sql(AGAINST.text))


def nearest_then_live(search: Search, space: EmbeddingSpace, where: Sql, pool: int) -> list[Sql]:
    """The quick statement's vector candidates: the pool's nearest vectors from the
    embedding table alone (no memory row read per vector looked at), then the live ones
    among them: exactly the nearest live memories, as many as there are (any live one
    further away is further than all). Enough when they fill what the pick looks at
    (``SELECTION_DEPTH × k``); an HNSW scan costs in proportion to the rows it returns
    (measured at 1M: 2.3 ms for 40 rows of a large client, 4.4 ms for 80)."""
    return [
        sql(
            "nearby AS MATERIALIZED (SELECT e.memory_id AS id FROM memories_memoryembedding e "
            "WHERE e.space_id = {space} AND e.client_id = {client} "
            "ORDER BY {distance} LIMIT {pool})",
            space=space.pk,
            client=search.client.pk,
            distance=distance(space),
            pool=pool,
        ),
        sql(
            "nearest AS MATERIALIZED (SELECT n.id FROM nearby n "
            "JOIN memories_memory m ON m.id = n.id WHERE {where})",
            where=where,
        ),
    ]


def short_of_live(search: Search, space: EmbeddingSpace, depth: int) -> Sql:
    """Short: fewer than ``depth`` of the nearest were live, and the client has more vectors
    than were read (all of them, or an HNSW scan that gave up early: hnsw.max_scan_tuples)."""
    return sql(
        "(SELECT count(*) FROM nearest) < {depth} AND EXISTS (SELECT 1 "
        "FROM memories_memoryembedding e WHERE e.space_id = {space} AND e.client_id = {client} "
        "OFFSET (SELECT count(*) FROM nearby) LIMIT 1)",
        depth=depth,
        space=space.pk,
        client=search.client.pk,
    )


def nearest_filtered(search: Search, space: EmbeddingSpace, where: Sql, pool: int) -> Sql:
    """The thorough statement's vector candidates: the nearest, filtered while scanning."""
    return sql(
        "nearest AS MATERIALIZED (SELECT e.memory_id AS id FROM memories_memoryembedding e "
        "JOIN memories_memory m ON m.id = e.memory_id "
        "WHERE e.space_id = {space} AND e.client_id = {client} AND {where} "
        "ORDER BY {distance} LIMIT {pool})",
        space=space.pk,
        client=search.client.pk,
        where=where,
        distance=distance(space),
        pool=pool,
    )


def nearest_exact(search: Search, space: EmbeddingSpace, where: Sql, pool: int) -> Sql:
    """An approximate index can come back short: a graph crowded with identical vectors
    (one sentence said by many clients) may strand the scan far from this client's rows.
    Then, and only then, the client's rows are compared one by one (the uncorrelated
    condition skips the branch without running it). OFFSET 0 keeps the distances a
    subquery of their own: the sort then moves (id, distance) pairs, not whole vectors."""
    return sql(
        "SELECT id FROM (SELECT d.id FROM (SELECT e.memory_id AS id, "
        "e.vector <=> {against}::vector AS distance FROM memories_memoryembedding e "
        "WHERE e.space_id = {space} AND e.client_id = {client} OFFSET 0) d "
        "JOIN memories_memory m ON m.id = d.id WHERE m.client_id = {client} AND {where} "
        "ORDER BY d.distance LIMIT {pool}) exact WHERE (SELECT count(*) FROM nearest) < {pool}",
        against=AGAINST,
        space=space.pk,
        client=search.client.pk,
        where=where,
        pool=pool,
    )


# How many of the client's memories of the categories a question asks for join the
# candidates (``answering``): a client has tens of preferences, not thousands.
ANSWERING_POOL = 10


def answering(search: Search, space: EmbeddingSpace, where: Sql, pool: int) -> Sql:
    """The client's memories of the categories the question asks for, nearest first:
    asked for advice ("How do I find the distance between (4, 7) and (1, 3)?"), the
    standing instruction that answers it ("Always provide step-by-step calculations when I
    ask about distance formulas") is a candidate however many statements about distances
    are nearer. Read through the (client, category) index and compared one by one: a
    client has few of them."""
    return sql(
        "SELECT id FROM (SELECT d.id FROM (SELECT m.id, e.vector <=> {against}::vector "
        "AS distance FROM memories_memory m JOIN memories_memoryembedding e "
        "ON e.memory_id = m.id AND e.space_id = {space} WHERE m.client_id = {client} "
        "AND m.category = ANY({categories}::varchar[]) AND {where} OFFSET 0) d "
        "ORDER BY d.distance LIMIT {pool}) answering",
        against=AGAINST,
        space=space.pk,
        client=search.client.pk,
        categories=list(search.expected.categories),
        where=where,
        pool=pool,
    )
