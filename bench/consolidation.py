"""Consolidation benchmark: fusion and promotion scoring over 10k, 30k and 100k memories,
each beside a baseline measured in the same run on the same table (one sequential scan:
``SELECT count(*), sum(length(content)) FROM memories_memory``), with the growth exponent.

    .venv/bin/python bench/consolidation.py [--sizes 10000 30000 100000] [--clients 200]

It runs on its own embedded database (``.data/bench-consolidation``, wiped at the start)
and grows one tenant to each size in turn, so the table holds exactly N memories when N is
measured. Each job runs as a first full pass (nothing fused or scored yet) inside a
transaction that is rolled back afterwards, so every size measures the same work.

Data (bench/corpus.py): facts from templates with many slots, one event and evidence row
each, sessions of about 20 events, restatement and read counters, 3% restatements that
differ only by emphasis (fusion merges them) and 3% near misses (another amount, person
or city: it must not). One client holds a quarter of all memories. Vectors are synthetic
and 64-dimensional (the local model embeds about 70 sentences a second here: 25 minutes
for 100k): a fact's restatements get the fact's vector plus a little noise (cosine ≈ 0.99),
other facts independent ones. Fusion only compares vectors of memories its word and metadata buckets
already matched, so the geometry does not change its cost.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import shutil
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / ".data" / "bench-consolidation"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="reuse the database of a last run")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        if not args.keep and DATA_DIR.exists():
            shutil.rmtree(DATA_DIR)
        os.environ["MEMORYHUB_DATA_DIR"] = str(DATA_DIR)
    sys.path.insert(0, str(ROOT / "bench"))
    from _setup import setup_django

    setup_django()
    from corpus import memory_rows
    from django.db import connection, transaction

    from curation.services.promotion_scoring import promotions_score
    from memories.models import Client, EmbeddingSpace, Memory
    from memories.services.jobs.fusion import fusion_run
    from memories.services.jobs.runner import JobCounts
    from memories.services.tenancy.members import tenant_get_or_create

    tenant = tenant_get_or_create(slug="bench-consolidation")
    space, _ = EmbeddingSpace.objects.get_or_create(
        provider="bench", model="synthetic-64", defaults={"dimension": 64}
    )
    refs = [f"c{n:04d}" for n in range(args.clients)]
    for ref in refs:
        Client.objects.get_or_create(tenant=tenant, external_ref=ref)
    client_ids = dict(Client.objects.filter(tenant=tenant).values_list("external_ref", "pk"))

    def baseline() -> float:
        with connection.cursor() as cursor:
            t0 = time.perf_counter()
            cursor.execute("SELECT count(*), sum(length(content)) FROM memories_memory")
            cursor.fetchall()
            return time.perf_counter() - t0

    def rolled_back(service) -> tuple[float, dict]:
        counts = JobCounts()
        t0 = time.perf_counter()
        try:
            with transaction.atomic():
                service(tenant_id=tenant.pk, counts=counts)
                elapsed = time.perf_counter() - t0
                raise _Rollback
        except _Rollback:
            pass
        return elapsed, dict(counts)

    results: list[tuple[int, int, float, float, float]] = []
    sessions: dict[tuple[int, int], uuid.UUID] = {}
    rows = memory_rows(max(args.sizes), clients=len(refs))
    for size in sorted(args.sizes):
        have = Memory.objects.filter(tenant=tenant).count()
        if have < size:
            t0 = time.perf_counter()
            _insert(
                connection, transaction, tenant, client_ids, refs, space, rows[have:size], sessions
            )
            with connection.cursor() as cursor:
                for table in ("memories_memory", "memories_evidence", "memories_event"):
                    cursor.execute(f"VACUUM ANALYZE {table}")
            print(f"built {size} memories ({time.perf_counter() - t0:.0f} s)", flush=True)
        total = Memory.objects.count()
        base = min(baseline() for _ in range(5))
        fusion_s, fusion_counts = rolled_back(fusion_run)
        scoring_s, scoring_counts = rolled_back(promotions_score)
        results.append((size, total, base, fusion_s, scoring_s))
        print(
            f"{size:>7} memories (table {total}): seq scan {base * 1000:7.1f} ms | "
            f"fusion {fusion_s:6.2f} s ({fusion_s / base:6.0f}× scan) "
            f"merged={fusion_counts.get('merged', 0)} | "
            f"promotion scoring {scoring_s:6.2f} s ({scoring_s / base:6.0f}× scan) "
            f"proposed={scoring_counts.get('proposed', 0)}",
            flush=True,
        )
    _report(results)
    from _report import Row, report

    figures: list[Row] = []
    for size, _, scan, fusion_s, scoring_s in results:
        scan_ms = round(scan * 1000, 2)
        figures.append(Row(f"{size} memories", "fusion ms", round(fusion_s * 1000), scan_ms))
        figures.append(
            Row(f"{size} memories", "promotion scoring ms", round(scoring_s * 1000), scan_ms)
        )
    report("consolidation (baseline: one sequential scan of the table)", figures)


class _Rollback(Exception):
    pass


def _report(results) -> None:
    print("\ngrowth exponent k in time ∝ n^k (n log n from 10k to 100k is k ≈ 1.10):")
    for (n1, _, b1, f1, s1), (n2, _, b2, f2, s2) in itertools.pairwise(results):
        span = math.log(n2 / n1)
        print(
            f"  {n1:>7} → {n2:>7}: seq scan {math.log(b2 / b1) / span:5.2f}   "
            f"fusion {math.log(f2 / f1) / span:5.2f}   "
            f"promotion scoring {math.log(s2 / s1) / span:5.2f}"
        )
    if len(results) > 2:
        (n1, _, b1, f1, s1), (n2, _, b2, f2, s2) = results[0], results[-1]
        span = math.log(n2 / n1)
        print(
            f"  {n1:>7} → {n2:>7}: seq scan {math.log(b2 / b1) / span:5.2f}   "
            f"fusion {math.log(f2 / f1) / span:5.2f}   "
            f"promotion scoring {math.log(s2 / s1) / span:5.2f}"
        )


def _insert(connection, transaction, tenant, client_ids, refs, space, rows, sessions) -> None:
    """Sessions, events, memories, evidence and vectors by COPY, in chunks."""
    import numpy as np

    from memories.models import Session
    from memories.text import content_hash, fold

    for start in range(0, len(rows), 5000):
        chunk = rows[start : start + 5000]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMP TABLE IF NOT EXISTS bench_rows (id uuid, event uuid, client uuid, "
                "session uuid, kind text, category text, content text, folded text, "
                "hash text, seen timestamptz, restated int, reads int, confidence float8, "
                "importance float8, vector text) ON COMMIT DELETE ROWS"
            )
            new_sessions = []
            for row in chunk:
                key = (row.client, row.session)
                if key not in sessions:
                    sessions[key] = uuid.uuid4()
                    new_sessions.append(
                        Session(
                            id=sessions[key],
                            tenant_id=tenant.pk,
                            client_id=client_ids[refs[row.client]],
                            external_ref=f"s{row.session}",
                        )
                    )
            Session.objects.bulk_create(new_sessions)
            with cursor.cursor.copy(
                "COPY bench_rows (id, event, client, session, kind, category, content, "
                "folded, hash, seen, restated, reads, confidence, importance, vector) FROM STDIN"
            ) as copy:
                for row in chunk:
                    client_id = client_ids[refs[row.client]]
                    vector = np.asarray(row.vector, dtype=np.float32)
                    copy.write_row(
                        (
                            uuid.uuid4(),
                            uuid.uuid4(),
                            client_id,
                            sessions[(row.client, row.session)],
                            row.kind,
                            row.category,
                            row.content,
                            fold(row.content),
                            content_hash(row.content),
                            row.seen,
                            row.restated,
                            row.reads,
                            row.confidence,
                            row.importance,
                            "[" + ",".join(f"{x:.4f}" for x in vector) + "]",
                        )
                    )
            cursor.execute(
                "INSERT INTO memories_event (id, tenant_id, client_id, session_id, source, "
                "speaker, content, external_id, observed_at, received_at, origin_agent, "
                "project_id, task_id, run_id, entities, metadata) "
                "SELECT event, %s, client, session, 'chat', 'client', content, '', seen, seen, "
                "'', '', '', '', '[]', '{}' FROM bench_rows",
                [tenant.pk],
            )
            cursor.execute(
                "INSERT INTO memories_memory (id, tenant_id, client_id, session_id, kind, "
                "category, title, content, content_hash, language, attribute, attribute_value, "
                "negated, speaker, subject, occurred_on, occurred_precision, context, "
                "search_vector, observed_at, created_at, source_kind, source_ref, "
                "origin_agent, project_id, task_id, run_id, tier, tier_pinned, status, "
                "status_reason, confidence, importance, freshness, usage_count, dup_count, "
                "evidence_count, last_seen_at, needs_embedding, tags, metadata, updated_at, "
                "topic, topic_probability, topics) "
                "SELECT id, %s, client, session, kind, category, '', content, hash, 'en', '', "
                "'', false, 'client', '', NULL, '', '', "
                "memory_search_vector(setweight(to_tsvector('english', folded), 'A'), client), "
                "seen, seen, 'session', '', '', '', '', '', 'recall', false, 'active', '', "
                "confidence, importance, 1.0, reads, restated, 1, seen, false, '{}', '{}', "
                "now(), '', 0, '{}' FROM bench_rows",
                [tenant.pk],
            )
            cursor.execute(
                "INSERT INTO memories_evidence (memory_id, event_id, role, action, created_at) "
                "SELECT id, event, 'extracted', 'added', seen FROM bench_rows"
            )
            cursor.execute(
                "INSERT INTO memories_memoryembedding (memory_id, space_id, tenant_id, "
                "client_id, vector, created_at) "
                "SELECT id, %s, %s, client, vector::vector, now() FROM bench_rows",
                [space.pk, tenant.pk],
            )


if __name__ == "__main__":
    main()
