"""Hybrid retrieval: the one place where memories are ranked.

Candidates come from indexes only: the client's nearest vectors (pgvector HNSW with
iterative scan, or the (space, client) b-tree for small clients: the planner picks by
statistics) and full-text matches (GIN on the folded, stemmed ``search_vector``). The
union, a few times ``k``, is then scored with configurable weights:

    score = Σ weight × component − weight_redundancy × redundancy

components: semantic (cosine), text (ts_rank_cd, normalised), recency (half-life 14 days
from the last time the client said it), usage (log-normalised over the candidates),
confidence, importance, canonicity (promoted > active > candidate). Redundancy
penalises a candidate by its similarity to those already chosen (greedy, like MMR), so
near-duplicates are not returned twice.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.utils import timezone

from memories.conf import setting
from memories.crypto import blind
from memories.models import LIVE_STATUSES, Memory, MemoryAccess, Status
from memories.services import embeddings
from memories.services.records import client_lexeme
from memories.services.text import fold

# Chosen by `manage.py memory_eval --compare-weightings` on the shipped dataset (see
# docs/decisions.md): best recall@1, equal best recall@3 among the weightings tried.
DEFAULT_WEIGHTS = {
    "semantic": 0.50,
    "text": 0.25,
    "recency": 0.10,
    "confidence": 0.05,
    "importance": 0.0,
    "usage": 0.05,
    "canonicity": 0.05,
    "redundancy": 0.10,
}
# The two weightings the seed documents propose, kept for the evaluation to compare.
SEED_000_WEIGHTS = {"semantic": 0.55, "text": 0.25, "recency": 0.15, "usage": 0.05}
SEED_004_WEIGHTS = {
    "semantic": 0.30,
    "recency": 0.20,
    "confidence": 0.20,
    "importance": 0.15,
    "usage": 0.10,
    "canonicity": 0.05,
    "redundancy": 0.10,
}
CANONICITY = {Status.PROMOTED: 1.0, Status.ACTIVE: 0.6, Status.CANDIDATE: 0.5}
_WORD = re.compile(r"\w{2,}")


@dataclass(frozen=True)
class Filters:
    tier: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    as_of: datetime | None = None


@dataclass
class Hit:
    memory: Memory
    score: float
    scores: dict[str, float] = field(default_factory=dict)


def ranking_weights() -> dict[str, float]:
    configured = setting("RANKING_WEIGHTS")
    if isinstance(configured, str):
        configured = json.loads(configured) if configured else {}
    return {**DEFAULT_WEIGHTS, **(configured or {})}


def memories_search(
    *,
    client,
    query: str,
    k: int = 10,
    filters: Filters = Filters(),
    weights: dict[str, float] | None = None,
    now: datetime | None = None,
    record_access: bool = True,
) -> list[Hit]:
    now = now or timezone.now()
    weights = weights or ranking_weights()
    tsquery = _tsquery(client.tenant, query)
    space, vector = _query_vector(client, query) if weights.get("semantic") else (None, None)
    rows = _scored_candidates(client, space, vector, tsquery, filters, weights, now, k)
    hits = _select(rows, weights, k)
    if record_access and hits:
        _accesses_record(client, hits, now)
    return hits


def _tsquery(tenant, query: str) -> str:
    """Any of the query's words (OR): ranking, not the match, decides what comes first.
    An encrypted tenant's words are its blind-index tokens, in the 'simple' config."""
    if tenant.encrypted:
        return " | ".join(blind.query_tokens(tenant, query))
    words = list(dict.fromkeys(_WORD.findall(fold(query))))[:32]
    return " | ".join(words)


def _text_config(tenant) -> str:
    return "simple" if tenant.encrypted else tenant.language


def _query_vector(client, query: str):
    if not client.tenant.vector_search_enabled or not query.strip():
        return None, None
    try:
        result = embeddings.get_chain().embed([query], input_type="query")
    except embeddings.EmbeddingError:
        return None, None  # full text still answers
    space = embeddings.known_space(result.provider, result.model)
    return (space, result.vectors[0]) if space else (None, None)


def _filter_sql(filters: Filters, now: datetime) -> tuple[str, list]:
    """WHERE conditions on ``m`` (memories_memory) for ``filters``."""
    sql, params = [], []
    if filters.as_of is not None:
        sql.append("m.created_at <= %s AND (m.invalidated_at IS NULL OR m.invalidated_at > %s)")
        sql.append("(m.expires_at IS NULL OR m.expires_at > %s)")
        params += [filters.as_of, filters.as_of, filters.as_of]
        if filters.status:
            sql.append("m.status = ANY(%s)")
            params.append(list(filters.status))
        else:
            sql.append("m.status <> 'deleted'")
    else:
        sql.append("m.status = ANY(%s)")
        params.append(list(filters.status or LIVE_STATUSES))
        if not filters.status:
            sql.append("(m.expires_at IS NULL OR m.expires_at > %s)")
            params.append(now)
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
    return " AND ".join(sql), params


def _literal(vector) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


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
}
# In the model's field order, the order Memory.from_db expects.
_SCORED_COLUMNS = tuple(f.attname for f in Memory._meta.concrete_fields if f.attname in _SCORED)
assert len(_SCORED_COLUMNS) == len(_SCORED), "a scored column is not a field of Memory"


# Rows scored in SQL; the redundancy-aware selection looks only this deep (× k).
SELECTION_DEPTH = 3

COMPONENTS = ("semantic", "text", "recency", "usage", "confidence", "importance", "canonicity")


def _scored_candidates(client, space, vector, tsquery, filters, weights, now, k) -> list:
    """One statement, one round trip:

    1. candidates from indexes: the client's nearest vectors (HNSW; the connection sets
       ``hnsw.iterative_scan`` so a filtered scan keeps going until it has its rows) and
       best full-text matches (GIN), ``max(4k, 40)`` of each;
    2. every component and the weighted base score of each candidate;
    3. for the best ``SELECTION_DEPTH × k`` by base score, the others among them whose
       vectors are close (cosine ≥ 0.8), so that no vector travels to Python.

    Returns (memory, base score, components, {close memory id: cosine}) rows, best first.
    """
    pool = max(4 * k, 40)
    where, where_params = _filter_sql(filters, now)
    ctes, sources, params = [], [], []
    if space is not None:
        # The query vector travels once; the three places that compare with it read it
        # from here (an InitPlan: the HNSW scan still orders by it).
        ctes.append(f"query_vector AS (SELECT (%s)::{space.vector_type} AS v)")
        params.append(_literal(vector))
        against = "(SELECT v FROM query_vector)"
        candidates = (
            "SELECT e.memory_id AS id FROM memories_memoryembedding e "  # noqa: S608
            "JOIN memories_memory m ON m.id = e.memory_id "
            f"WHERE e.space_id = %s AND e.client_id = %s AND {where} ORDER BY "
        )
        ctes.append(f"nearest AS MATERIALIZED ({candidates}{space.distance_sql(against)} LIMIT %s)")
        params += [space.pk, client.pk, *where_params, pool]
        sources.append("SELECT id FROM nearest")
        # An approximate index can come back short: a graph crowded with identical vectors
        # (the same sentence said by many clients) may strand the scan far from this
        # client's rows. Then, and only then, the client's rows are compared one by one
        # (the uncorrelated condition skips this branch without running it).
        sources.append(
            # OFFSET 0 keeps the distances a subquery of their own: the sort then moves
            # (id, distance) pairs, not whole vectors.
            "SELECT id FROM (SELECT d.id FROM (SELECT e.memory_id AS id, "  # noqa: S608
            f"e.vector <=> {against}::vector AS distance FROM memories_memoryembedding e "
            "WHERE e.space_id = %s AND e.client_id = %s OFFSET 0) d "
            f"JOIN memories_memory m ON m.id = d.id WHERE m.client_id = %s AND {where} "
            "ORDER BY d.distance LIMIT %s) exact WHERE (SELECT count(*) FROM nearest) < %s"
        )
        params += [space.pk, client.pk, client.pk, *where_params, pool, pool]
    if tsquery:
        config = _text_config(client.tenant)
        # At most TEXT_MATCHES_RANKED matches are ranked: a word that thousands of the
        # client's memories share tells little, and fetching every one of them to rank
        # was most of a large client's search. ts_rank (not _cd) picks the candidates;
        # the score uses ts_rank_cd on the few that come through.
        sources.append(
            "SELECT matches.id FROM (SELECT m.id, m.search_vector "  # noqa: S608
            "FROM memories_memory m, to_tsquery(%s::regconfig, %s) q "
            f"WHERE m.client_id = %s AND {where} "
            "AND m.search_vector @@ (q && to_tsquery('simple', %s)) LIMIT %s) matches, "
            "to_tsquery(%s::regconfig, %s) q ORDER BY ts_rank(matches.search_vector, q) DESC "
            "LIMIT %s"
        )
        params += [
            config,
            tsquery,
            client.pk,
            *where_params,
            client_lexeme(client.pk),
            int(setting("TEXT_MATCHES_RANKED")),
            config,
            tsquery,
            pool,
        ]
    if not sources:
        return []

    if space is not None:
        semantic = f"greatest(0, 1 - ({space.distance_sql(against)}))"
    else:
        semantic = "0::float8"
    if tsquery:
        # normalisation 32: rank / (rank + 1), in [0, 1)
        text = "ts_rank_cd(m.search_vector, to_tsquery(%s::regconfig, %s), 32)::float8"
        params += [config, tsquery]
    else:
        text = "0::float8"
    params += [now, float(setting("RECENCY_HALF_LIFE_DAYS"))]
    canonicity = " ".join(f"WHEN '{status}' THEN {value}" for status, value in CANONICITY.items())
    join, vector_column = "", "NULL::vector"
    if space is not None:
        join = "LEFT JOIN memories_memoryembedding e ON e.memory_id = m.id AND e.space_id = %s"
        vector_column = "e.vector"
        params.append(space.pk)
    base = " + ".join(f"%s * c_{name}" for name in COMPONENTS)
    params += [float(weights.get(name, 0.0)) for name in COMPONENTS]
    params += [SELECTION_DEPTH * k, REDUNDANCY_FLOOR]
    columns = ", ".join(f"m.{name}" for name in _SCORED_COLUMNS)
    union = " UNION ".join(f"({source})" for source in sources)
    sql = (
        f"WITH {''.join(cte + ', ' for cte in ctes)}pool AS ({union}), "  # noqa: S608
        f"scored AS (SELECT {columns}, {vector_column} AS vector, {semantic} AS c_semantic, "
        f"{text} AS c_text, power(0.5, greatest(0, extract(epoch FROM %s - m.last_seen_at)"
        "::float8 / 86400) / %s) AS c_recency, "
        "coalesce(ln(1 + m.usage_count) / nullif(ln(1 + max(m.usage_count) OVER ()), 0), 0) "
        "AS c_usage, m.confidence::float8 AS c_confidence, m.importance::float8 AS c_importance, "
        f"CASE m.status {canonicity} ELSE 0.2 END::float8 AS c_canonicity "
        f"FROM pool JOIN memories_memory m ON m.id = pool.id {join}), "
        f"best AS MATERIALIZED (SELECT *, {base} AS base FROM scored "
        "ORDER BY base DESC, id LIMIT %s) "
        f"SELECT b.{', b.'.join(_SCORED_COLUMNS)}, b.base, b.c_{', b.c_'.join(COMPONENTS)}, "
        "close.ids, close.cosines FROM best b LEFT JOIN LATERAL ("
        "SELECT array_agg(o.id) AS ids, array_agg(o.cosine) AS cosines FROM ("
        "SELECT o.id, 1 - (b.vector <=> o.vector) AS cosine FROM best o "
        "WHERE o.id <> b.id) o WHERE o.cosine >= %s) close ON true "
        "ORDER BY b.base DESC, b.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    width = len(_SCORED_COLUMNS)
    rows = []
    for row in fetched:
        memory = Memory.from_db(connection.alias, _SCORED_COLUMNS, row[:width])
        base_score = row[width]
        components = dict(
            zip(COMPONENTS, row[width + 1 : width + 1 + len(COMPONENTS)], strict=True)
        )
        close_ids, close_cosines = row[width + 1 + len(COMPONENTS) :]
        close = dict(zip(close_ids or (), close_cosines or (), strict=True))
        rows.append((memory, base_score, components, close))
    return rows


def _accesses_record(client, hits, now) -> None:
    """One INSERT for the whole answer. Outside a transaction the statement turns
    ``synchronous_commit`` off for its own implicit transaction (``set_config`` with
    is_local): losing the last few rows in a crash costs a usage count, so a read does not
    wait for the WAL flush."""
    if connection.in_atomic_block:  # the caller's transaction decides how it commits
        MemoryAccess.objects.bulk_create(
            [MemoryAccess(memory=h.memory, client_id=client.pk, at=now) for h in hits]
        )
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH quick AS (SELECT set_config('synchronous_commit', 'off', true)) "
            "INSERT INTO memories_memoryaccess (memory_id, client_id, at, rolled_up) "
            "SELECT id, %s, %s, false FROM quick, unnest(%s::uuid[]) AS id",
            [client.pk, now, [h.memory.pk for h in hits]],
        )


def _select(rows, weights, k) -> list[Hit]:
    """Greedy, like MMR: the best base score, less a penalty for repeating what the
    answer already holds; duplicates are never returned."""
    chosen: list[Hit] = []
    remaining = list(rows)  # best base score first
    penalty = weights.get("redundancy", 0.0)
    while remaining and len(chosen) < k:
        best_index, best_score, best_redundancy = 0, -math.inf, 0.0
        for index, (memory, base, _, close) in enumerate(remaining):
            redundancy = _redundancy(memory, close, chosen)
            if redundancy is None:
                continue  # says what an answer already says
            score = base - penalty * redundancy
            if score > best_score:
                best_index, best_score, best_redundancy = index, score, redundancy
            if base - penalty < best_score:
                break  # sorted by base: nothing further down can win
        if best_score == -math.inf:
            break
        memory, _, components, _ = remaining.pop(best_index)
        components = {name: round(value, 4) for name, value in components.items()}
        components["redundancy"] = round(best_redundancy, 4)
        chosen.append(Hit(memory, round(best_score, 4), components))
    return chosen


DUPLICATE_COSINE = 0.97
REDUNDANCY_FLOOR = 0.8


def _redundancy(memory, close: dict, chosen: list[Hit]) -> float | None:
    """How much ``memory`` repeats one already chosen: 0 below cosine 0.8 rising to 1 near
    0.97; None for a duplicate (same text, or cosine ≥ 0.97), which is never returned."""
    worst = 0.0
    for hit in chosen:
        if hit.memory.content_hash == memory.content_hash:
            return None
        worst = max(worst, close.get(hit.memory.pk, 0.0))
    if worst >= DUPLICATE_COSINE:
        return None
    return min(1.0, max(0.0, (worst - REDUNDANCY_FLOOR) / (DUPLICATE_COSINE - REDUNDANCY_FLOOR)))
