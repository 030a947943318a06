"""Ranking refresh (seed 004 §8 job E): each live memory's query-independent standing,
``rank_score`` in [0, 1], recomputed from recency, use, evidence, confidence, importance
and canonicity with the read path's weights, so listings and exports can order memories
without a query. Search ranks with the same components per query and does not read it.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from memories.conf import setting
from memories.models import LIVE_STATUSES, Memory
from memories.services.jobs.claims import client_batches
from memories.services.jobs.runner import JobCounts
from memories.services.retrieval import ranking_weights
from memories.services.retrieval.signals import canonicity_sql, recency_sql

COMPONENTS = ("recency", "usage", "evidence", "confidence", "importance", "canonicity")


def ranking_refresh(*, tenant_id=None, counts: JobCounts) -> None:
    now = timezone.now()
    weights = {**ranking_weights(), "evidence": float(setting("RANK_EVIDENCE_WEIGHT"))}
    total = sum(max(0.0, weights.get(name, 0.0)) for name in COMPONENTS) or 1.0
    formula = " + ".join(
        f"{max(0.0, weights.get(name, 0.0)) / total:.6f} * {name}" for name in COMPONENTS
    )
    live = Memory.objects.filter(status__in=LIVE_STATUSES)
    if tenant_id is not None:
        live = live.filter(tenant_id=tenant_id)
    for client_ids, held in client_batches(live):
        counts.add("updated", _refresh([str(c) for c in client_ids], now, formula))
        counts.add("memories", held)


def _refresh(client_ids: list[str], now, formula: str) -> int:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "WITH s AS (SELECT id, "  # noqa: S608 (built from settings and constants)
            f"{recency_sql('last_seen_at')} AS recency, "
            "COALESCE(ln(1 + usage_count) / NULLIF(ln(1 + max(usage_count) OVER w), 0), 0) "
            "AS usage, "
            "COALESCE(ln(1 + evidence_count) / NULLIF(ln(1 + max(evidence_count) OVER w), 0), 0) "
            "AS evidence, confidence, importance, "
            f"{canonicity_sql('status')} AS canonicity "
            "FROM memories_memory WHERE client_id = ANY(%s::uuid[]) AND status = ANY(%s) "
            "WINDOW w AS (PARTITION BY client_id)), "
            f"r AS (SELECT id, round(({formula})::numeric, 4)::float AS score FROM s) "
            "UPDATE memories_memory m SET rank_score = r.score FROM r "
            "WHERE m.id = r.id AND m.rank_score IS DISTINCT FROM r.score",
            [now, float(setting("RECENCY_HALF_LIFE_DAYS")), client_ids, list(LIVE_STATUSES)],
        )
        return cursor.rowcount
