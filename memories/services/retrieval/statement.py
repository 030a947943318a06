"""The statement behind a search: candidates from indexes, every score component and the
weighted base score, and the close pairs among the best, in one round trip.

The package (``memories.services.retrieval``) runs it and makes the final, redundancy-aware
pick.
"""

from __future__ import annotations

from datetime import datetime

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    Memory,
    Status,
    unexpired_sql,
    vector_literal,
)
from memories.selectors.filters import Filters
from memories.services.retrieval.query import Search
from memories.services.retrieval.sql import Sql
from memories.services.retrieval.text import (
    COVERAGE_JOIN,
    bm25_of_m,
    text_ctes,
    text_scaled,
)
from memories.services.retrieval.window import Window

COMPONENTS = (
    "semantic",
    "text",
    "recency",
    "usage",
    "confidence",
    "importance",
    "canonicity",
    "speaker",
    "answer",
    "window",
    "past",
)
# Components that count against a memory: its weight is subtracted.
PENALTIES = frozenset({"past"})
CANONICITY = {Status.PROMOTED: 1.0, Status.ACTIVE: 0.6, Status.CANDIDATE: 0.5}


# Past this many half-lives recency is below what float8 can add to any other component
# (2 ** -64 ≈ 5e-20); capping the exponent keeps power() from underflowing, which
# PostgreSQL raises as an error rather than answering 0 (0.5 ** 1100: a memory of 1984).
RECENCY_MAX_HALF_LIVES = 64


def recency_sql(seen_column: str) -> str:
    """Recency as SQL, in (0, 1] for any time: 0.5 ** (days since ``seen_column`` / half-life),
    the future counting as now. Its parameters: the time now, the half-life in days."""
    days = f"greatest(0, extract(epoch FROM %s - {seen_column})::float8 / 86400)"
    return f"power(0.5, least({days} / greatest(%s, 1e-6), {RECENCY_MAX_HALF_LIVES}))"


def canonicity_sql(status_column: str) -> str:
    """The canonicity of a row as SQL (also the ranking refresh's)."""
    cases = " ".join(f"WHEN '{status}' THEN {value}" for status, value in CANONICITY.items())
    return f"CASE {status_column} {cases} ELSE 0.2 END::float8"


# The relevance floor weighs this many of the nearest candidates: the pool of a search of
# up to 10 results, whatever k is.
FLOOR_POOL = 40
# Rows scored in SQL; the redundancy-aware selection looks only this deep (× k).
SELECTION_DEPTH = 3
# Below this cosine two memories do not repeat each other at all.
REDUNDANCY_FLOOR = 0.8
# Two memories of one speaker this close say the same thing of the same subject (a number, a
# date, a status said again with another value): the later one is its current value.
RESTATED = 0.72
# The statement reports the pairs this close among the best candidates.
CLOSE_FLOOR = min(REDUNDANCY_FLOOR, RESTATED)

# What ranking and the answer read of a memory (Memory.from_db defers the rest).
_SCORED = {
    "id",
    "tenant_id",
    "client_id",
    "kind",
    "category",
    "content",
    "content_hash",
    "tier",
    "status",
    "confidence",
    "importance",
    "usage_count",
    "last_seen_at",
    "observed_at",
    "created_at",
    "expires_at",
    "tags",
    "speaker",
    "subject",
    "occurred_on",
    "occurred_precision",
}
# In the model's field order, the order Memory.from_db expects.
SCORED_COLUMNS = tuple(f.attname for f in Memory._meta.concrete_fields if f.attname in _SCORED)
assert len(SCORED_COLUMNS) == len(_SCORED), "a scored column is not a field of Memory"


def candidates_statement(search: Search, *, thorough: bool) -> tuple[str, list]:
    """The statement and its parameters. Its rows: the scored columns of a memory, its base
    score, its components, the relevance figures, the ids and cosines of the others close
    to it (cosine ≥ CLOSE_FLOOR) among the best ``SELECTION_DEPTH × k``, the ids of the
    events it rests on, and ``short``; best first.

    Candidates, ``max(4k, 40)`` of each kind: the client's nearest vectors (HNSW; the
    connection sets ``hnsw.iterative_scan``) and its best full-text matches (GIN).

    The quick statement (``thorough=False``, default filters only) finds the nearest
    vectors the way a bare nearest-neighbour query does and keeps the live ones; every row
    says ``short`` when fewer than ``SELECTION_DEPTH × k`` of them were live. The thorough one
    filters while it scans and, should the approximate index still come back short,
    compares the client's rows one by one; it never says ``short``.
    """
    k, pool = search.k, max(4 * search.k, FLOOR_POOL)
    where, where_params = _filter_sql(search.filters, search.now)
    # (sql, params) pairs: CTEs come first in the statement, then the union's members.
    ctes: list[tuple[str, list]] = []
    sources: list[tuple[str, list]] = []
    short, short_params = "false", []
    space = search.space
    if space is not None:
        # The query vector travels once; the places that compare with it read it from
        # here (an InitPlan: the HNSW scan still orders by it).
        ctes.append(
            (
                f"query_vector AS (SELECT (%s)::{space.vector_type} AS v)",
                [vector_literal(search.vector)],
            )
        )
        against = "(SELECT v FROM query_vector)"
        distance = space.distance_sql(against)
        if not thorough:
            # The pool's nearest vectors from the embedding table alone (no memory row read
            # per vector looked at), then the live ones among them: exactly the nearest
            # live memories, as many as there are (any live one further away is further
            # than all). Enough when they fill what the pick looks at (SELECTION_DEPTH × k);
            # an HNSW scan costs in proportion to the rows it returns (measured at 1M: 2.3
            # ms for 40 rows of a large client, 4.4 ms for 80).
            ctes.append(
                (
                    "nearby AS MATERIALIZED (SELECT e.memory_id AS id "  # noqa: S608
                    "FROM memories_memoryembedding e "
                    f"WHERE e.space_id = %s AND e.client_id = %s ORDER BY {distance} LIMIT %s)",
                    [space.pk, search.client.pk, pool],
                )
            )
            ctes.append(
                (
                    "nearest AS MATERIALIZED (SELECT n.id FROM nearby n "  # noqa: S608
                    f"JOIN memories_memory m ON m.id = n.id WHERE {where})",
                    where_params,
                )
            )
            # Short: too few were live, and the client has more vectors than were read
            # (all of them, or an HNSW scan that gave up early: hnsw.max_scan_tuples).
            short = (
                "(SELECT count(*) FROM nearest) < %s AND EXISTS (SELECT 1 "
                "FROM memories_memoryembedding e WHERE e.space_id = %s AND e.client_id = %s "
                "OFFSET (SELECT count(*) FROM nearby) LIMIT 1)"
            )
            short_params = [SELECTION_DEPTH * k, space.pk, search.client.pk]
            sources.append(("SELECT id FROM nearest", []))
        else:
            ctes.append(
                (
                    "nearest AS MATERIALIZED (SELECT e.memory_id AS id "  # noqa: S608
                    "FROM memories_memoryembedding e "
                    "JOIN memories_memory m ON m.id = e.memory_id "
                    f"WHERE e.space_id = %s AND e.client_id = %s AND {where} "
                    f"ORDER BY {distance} LIMIT %s)",
                    [space.pk, search.client.pk, *where_params, pool],
                )
            )
            sources.append(("SELECT id FROM nearest", []))
            # An approximate index can come back short: a graph crowded with identical
            # vectors (one sentence said by many clients) may strand the scan far from
            # this client's rows. Then, and only then, the client's rows are compared one
            # by one (the uncorrelated condition skips the branch without running it).
            client_id = search.client.pk
            sources.append(
                (
                    # OFFSET 0 keeps the distances a subquery of their own: the sort then
                    # moves (id, distance) pairs, not whole vectors.
                    "SELECT id FROM (SELECT d.id FROM (SELECT e.memory_id AS id, "  # noqa: S608
                    f"e.vector <=> {against}::vector AS distance "
                    "FROM memories_memoryembedding e "
                    "WHERE e.space_id = %s AND e.client_id = %s OFFSET 0) d "
                    f"JOIN memories_memory m ON m.id = d.id WHERE m.client_id = %s AND {where} "
                    "ORDER BY d.distance LIMIT %s) exact "
                    "WHERE (SELECT count(*) FROM nearest) < %s",
                    [space.pk, client_id, client_id, *where_params, pool, pool],
                )
            )
    if search.words:
        ctes += [
            (cte.text, list(cte.params))
            for cte in text_ctes(
                client=search.client.pk,
                words=search.words,
                blind_readings=search.blind_readings,
                text_config=search.text_config,
                where=Sql(where, tuple(where_params)),
                pool=pool,
            )
        ]
        sources.append(("SELECT id FROM text_pool", []))
    if not sources:
        return "", []

    if space is not None:
        semantic = f"greatest(0, 1 - ({space.distance_sql(against)}))"
    else:
        semantic = "0::float8"
    params = [p for _, cte_params in ctes for p in cte_params]
    params += [p for _, source_params in sources for p in source_params]
    if search.words:
        # BM25 over the memory's words, its speaker's name and (at TEXT_CONTEXT_WEIGHT) the
        # turn it answers, each term weighed by its rarity among the client's memories; then
        # scaled so the best candidate scores 1. ``coverage``: the share of the query's
        # weight (its rare words weigh most) that the memory holds, for the relevance floor.
        text, text_params = bm25_of_m().text, list(bm25_of_m().params)
        coverage, text_total = "coalesce(coverage.share, 0)", "coverage.total"
        coverage_join = COVERAGE_JOIN.text
    else:
        text, text_params, coverage = "0::float8", [], "0::float8"
        text_total, coverage_join = "NULL::float8", ""
    params += text_params
    params += [search.now, float(setting("RECENCY_HALF_LIFE_DAYS"))]
    params += [list(search.speakers), list(search.expected.tags), search.expected.when]
    params += _window_params(search.window)
    params.append(search.now)
    join, vector_column = "", "NULL::vector"
    if space is not None:
        join = "LEFT JOIN memories_memoryembedding e ON e.memory_id = m.id AND e.space_id = %s"
        vector_column = "e.vector"
        params.append(space.pk)
    base = " + ".join(f"%s * c_{name}" for name in COMPONENTS)
    params += [
        float(search.weights.get(name, 0.0)) * (-1 if name in PENALTIES else 1)
        for name in COMPONENTS
    ]
    params += [SELECTION_DEPTH * k, CLOSE_FLOOR, FLOOR_POOL, *short_params]
    columns = ", ".join(f"m.{name}" for name in SCORED_COLUMNS)
    union = " UNION ".join(f"({source})" for source, _ in sources)
    sql = (
        f"WITH {''.join(cte + ', ' for cte, _ in ctes)}pool AS ({union}), "  # noqa: S608
        f"raw AS (SELECT {columns}, {vector_column} AS vector, {semantic} AS c_semantic, "
        f"{text} AS text_raw, {coverage} AS c_coverage, {text_total} AS text_total, "
        f"{recency_sql('m.last_seen_at')} AS c_recency, "
        "coalesce(ln(1 + m.usage_count) / nullif(ln(1 + max(m.usage_count) OVER ()), 0), 0) "
        "AS c_usage, m.confidence::float8 AS c_confidence, m.importance::float8 AS c_importance, "
        f"{canonicity_sql('m.status')} AS c_canonicity, "
        "(m.speaker <> '' AND lower(m.speaker) = ANY(%s::text[]))::int::float8 AS c_speaker, "
        "(m.tags && %s::varchar[] OR (%s AND m.occurred_on IS NOT NULL))::int::float8 "
        f"AS c_answer, {_WINDOW_SQL} AS c_window, "
        "(m.expires_at IS NOT NULL AND m.expires_at <= %s)::int::float8 AS c_past "
        f"FROM pool JOIN memories_memory m ON m.id = pool.id {coverage_join} {join}), "
        f"scored AS (SELECT *, {text_scaled().text if search.words else '0::float8'} AS c_text "
        "FROM raw), "
        f"best AS MATERIALIZED (SELECT *, {base} AS base FROM scored "
        "ORDER BY base DESC, id LIMIT %s) "
        f"SELECT b.{', b.'.join(SCORED_COLUMNS)}, b.base, b.c_{', b.c_'.join(COMPONENTS)}, "
        "relevance.best_semantic, relevance.median_semantic, relevance.best_coverage, "
        "relevance.candidates, close.ids, close.cosines, told.events, short.flag FROM best b "
        # The events each of the best rests on: one result per event (the pick).
        "LEFT JOIN LATERAL (SELECT array_agg(ev.event_id) AS events FROM memories_evidence ev "
        "WHERE ev.memory_id = b.id) told ON true LEFT JOIN "
        "LATERAL (SELECT array_agg(o.id) AS ids, array_agg(o.cosine) AS cosines FROM ("
        "SELECT o.id, 1 - (b.vector <=> o.vector) AS cosine FROM best o "
        "WHERE o.id <> b.id) o WHERE o.cosine >= %s) close ON true, "
        # What the relevance floor weighs: the nearest FLOOR_POOL candidates, however many
        # the search reads for its k (a larger k must not turn "nothing" into an answer).
        "(SELECT max(n.c_semantic) AS best_semantic, percentile_cont(0.5) WITHIN GROUP "
        "(ORDER BY n.c_semantic) AS median_semantic, (SELECT max(c_coverage) FROM scored) "
        "AS best_coverage, count(*) AS candidates FROM (SELECT c_semantic FROM scored "
        "ORDER BY c_semantic DESC LIMIT %s) n) relevance, "
        f"(SELECT {short} AS flag) short "
        "ORDER BY b.base DESC, b.id"
    )
    return sql, params


# When it happened: the day the text gives, else the day it was said (in UTC).
_HAPPENED = "coalesce(m.occurred_on, (m.observed_at AT TIME ZONE 'UTC')::date)"
# In the query's window: 1 inside, 0.5 within its slack either side, else 0 (and 0 for all
# when the query names no days). Parameters: ``_window_params``.
_WINDOW_SQL = (
    f"(CASE WHEN %s::date IS NULL THEN 0 WHEN {_HAPPENED} BETWEEN %s::date AND %s::date THEN 1 "
    f"WHEN {_HAPPENED} BETWEEN %s::date - %s::int AND %s::date + %s::int THEN 0.5 "
    "ELSE 0 END)::float8"
)


def _window_params(window: Window | None) -> list:
    if window is None:
        return [None] * 7
    first, last, slack = window.first, window.last, window.slack
    return [first, first, last, first, slack, last, slack]


def _filter_sql(filters: Filters, now: datetime) -> tuple[str, list]:
    """WHERE conditions on ``m`` (memories_memory) for ``filters``."""
    sql: list[str] = []
    params: list[object] = []
    if filters.as_of is not None:
        sql.append("m.created_at <= %s AND (m.invalidated_at IS NULL OR m.invalidated_at > %s)")
        sql.append(unexpired_sql("m"))
        params += [filters.as_of, filters.as_of, filters.as_of]
        if filters.status:
            sql.append("m.status = ANY(%s)")
            params.append(list(filters.status))
        else:
            sql.append("m.status <> 'deleted'")
    else:
        # A live status asked for means live now: an operational memory past its expiry is
        # expired from that moment, whether or not the TTL sweep has marked it yet.
        wanted = filters.status or LIVE_STATUSES
        live = [status for status in wanted if status in LIVE_STATUSES]
        others = [status for status in wanted if status not in LIVE_STATUSES]
        parts, part_params = [f"(m.status = ANY(%s) AND {unexpired_sql('m')})"], [live, now]
        if others:
            parts.append("m.status = ANY(%s)")
            part_params.append(others)
        if Status.EXPIRED in others:
            parts.append(f"(m.status = ANY(%s) AND NOT {unexpired_sql('m')})")
            part_params += [list(LIVE_STATUSES), now]
        sql.append(f"({' OR '.join(parts)})")
        params += part_params
    if filters.tier:
        sql.append("m.tier = ANY(%s)")
        params.append(list(filters.tier))
    if filters.kind:
        sql.append("m.kind = ANY(%s)")
        params.append(list(filters.kind))
    if filters.tags:
        sql.append("m.tags && %s::varchar[]")
        params.append(list(filters.tags))
    if filters.since is not None:
        sql.append("m.observed_at >= %s")
        params.append(filters.since)
    if filters.until is not None:
        sql.append("m.observed_at <= %s")
        params.append(filters.until)
    if filters.speakers:
        sql.append("lower(m.speaker) = ANY(%s::text[])")
        params.append(list(filters.speakers))
    happened = _HAPPENED
    if filters.happened_since is not None:
        sql.append(f"{happened} >= %s")
        params.append(filters.happened_since)
    if filters.happened_until is not None:
        sql.append(f"{happened} <= %s")
        params.append(filters.happened_until)
    return " AND ".join(sql), params
