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

from django.db import connection, transaction
from django.utils import timezone

from memories.conf import setting
from memories.models import LIVE_STATUSES, EmbeddingSpace, Memory, MemoryAccess, Status
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
    pool = max(4 * k, 40)
    tsquery = _tsquery(query)
    space, vector = _query_vector(client, query) if weights.get("semantic") else (None, None)

    with transaction.atomic():
        candidates: set = set()
        if vector is not None:
            candidates |= _vector_candidates(client, space, vector, filters, now, pool)
        if tsquery:
            candidates |= _text_candidates(client, tsquery, filters, now, pool)
        if not candidates:
            return []
        rows = _score_inputs(candidates, space, vector, tsquery, client.tenant.language)
        hits = _rank(rows, weights, now, k)
        if record_access and hits:
            with connection.cursor() as cursor:
                # A read's only write is its access log: losing the last few rows in a
                # crash costs a usage count, so the read does not wait for the WAL flush.
                cursor.execute("SET LOCAL synchronous_commit = off")
            MemoryAccess.objects.bulk_create(
                [MemoryAccess(memory=h.memory, client_id=client.pk, at=now) for h in hits]
            )
    return hits


def _tsquery(query: str) -> str:
    """Any of the query's words (OR): ranking, not the match, decides what comes first."""
    words = list(dict.fromkeys(_WORD.findall(fold(query))))[:32]
    return " | ".join(words)


def _query_vector(client, query: str):
    if not client.tenant.vector_search_enabled or not query.strip():
        return None, None
    try:
        result = embeddings.get_chain().embed([query], input_type="query")
    except embeddings.EmbeddingError:
        return None, None  # full text still answers
    space = EmbeddingSpace.objects.filter(provider=result.provider, model=result.model).first()
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


def _vector_candidates(client, space, vector, filters, now, pool) -> set:
    where, params = _filter_sql(filters, now)
    literal = _literal(vector)
    with connection.cursor() as cursor:
        # pgvector 0.8: keep scanning the HNSW graph until LIMIT rows pass the filters.
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute(
            "SELECT e.memory_id FROM memories_memoryembedding e "  # noqa: S608 (model-built)
            "JOIN memories_memory m ON m.id = e.memory_id "
            f"WHERE e.space_id = %s AND e.client_id = %s AND {where} "
            f"ORDER BY {space.distance_sql()} LIMIT %s",
            [space.pk, client.pk, *params, literal, pool],
        )
        return {row[0] for row in cursor.fetchall()}


def _text_candidates(client, tsquery, filters, now, pool) -> set:
    where, params = _filter_sql(filters, now)
    config = client.tenant.language
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.id FROM memories_memory m, to_tsquery(%s::regconfig, %s) q "  # noqa: S608
            f"WHERE m.client_id = %s AND {where} "
            "AND m.search_vector @@ (q && to_tsquery('simple', %s)) "
            # ts_rank (not _cd) to pick candidates: cheaper on clients with many matches;
            # the final score uses ts_rank_cd on the few candidates.
            "ORDER BY ts_rank(m.search_vector, q) DESC LIMIT %s",
            [config, tsquery, client.pk, *params, client_lexeme(client.pk), pool],
        )
        return {row[0] for row in cursor.fetchall()}


_SCORED_FIELDS = (
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
)


def _score_inputs(ids, space, vector, tsquery, config):
    """(memory, semantic similarity, text rank) for each candidate, and the pairs of
    candidates whose vectors are close (cosine ≥ 0.8): the database compares them, so no
    vector travels to Python."""
    ids = list(ids)
    similarity, params = "NULL", []
    if space is not None:
        similarity = f"1 - ({space.distance_sql()})"
        params.append(_literal(vector))
    rank = "ts_rank_cd(m.search_vector, to_tsquery(%s::regconfig, %s), 32)" if tsquery else "0"
    if tsquery:
        params += [config, tsquery]
    params += [space.pk if space is not None else None, ids]
    close: dict = {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, {similarity}, {rank} "  # noqa: S608 (model-built)
            "FROM memories_memory m LEFT JOIN memories_memoryembedding e "
            "ON e.memory_id = m.id AND e.space_id = %s WHERE m.id = ANY(%s)",
            params,
        )
        extra = {row[0]: row[1:] for row in cursor.fetchall()}
        if space is not None:
            cursor.execute(
                "SELECT a.memory_id, b.memory_id, 1 - (a.vector <=> b.vector) "
                "FROM memories_memoryembedding a JOIN memories_memoryembedding b "
                "ON a.space_id = b.space_id AND a.memory_id < b.memory_id "
                "WHERE a.space_id = %s AND a.memory_id = ANY(%s) AND b.memory_id = ANY(%s) "
                "AND 1 - (a.vector <=> b.vector) >= %s",
                [space.pk, ids, ids, REDUNDANCY_FLOOR],
            )
            for first, second, cosine in cursor.fetchall():
                close.setdefault(first, {})[second] = float(cosine)
                close.setdefault(second, {})[first] = float(cosine)
    memories = Memory.objects.only(*_SCORED_FIELDS).in_bulk(ids)
    rows = [
        (memories[i], float(sim or 0.0), float(text_rank or 0.0), close.get(i, {}))
        for i, (sim, text_rank) in extra.items()
        if i in memories
    ]
    return rows


def _rank(rows, weights, now, k) -> list[Hit]:
    half_life = float(setting("RECENCY_HALF_LIFE_DAYS"))
    max_usage = max((m.usage_count for m, *_ in rows), default=0)
    scored = []
    for memory, similarity, text_rank, close in rows:
        age_days = max(0.0, (now - memory.last_seen_at).total_seconds() / 86400)
        components = {
            "semantic": max(0.0, similarity),
            "text": text_rank,
            "recency": 0.5 ** (age_days / half_life),
            "usage": math.log1p(memory.usage_count) / math.log1p(max_usage) if max_usage else 0.0,
            "confidence": memory.confidence,
            "importance": memory.importance,
            "canonicity": CANONICITY.get(memory.status, 0.2),
        }
        base = sum(weights.get(name, 0.0) * value for name, value in components.items())
        scored.append((memory, base, components, close))

    chosen: list[Hit] = []
    remaining = sorted(scored, key=lambda row: row[1], reverse=True)
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
