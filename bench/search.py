"""Search benchmark: p50/p95 server time of POST /api/v1/search/ (k=10, one client,
default filters) beside, in the same run and on the same table,
  - a bare pgvector HNSW top-10 for the client (no filters, no scoring), and
  - the seed-000 formula (0.55·cosine + 0.25·ts_rank_cd + 0.15·recency + 0.05·usage)
    computed over every row (no index), the naive way to rank.

    .venv/bin/python bench/search.py --memories 100000 [--clients 1000] [--queries 200]

The data set (memories across clients, a few of them very large) is built once per size
in its own tenant and reused by later runs; an interrupted build resumes where it stopped.
Each memory is two generated sentences, so that nearly every memory is distinct, as real
memories are (a corpus of a few thousand sentences repeated a million times would crowd
the HNSW graph with identical vectors, which no real tenant does). Vectors come from the
real local model: each distinct sentence is embedded once and a memory's vector is the
normalised sum of its two sentences' vectors (the model embeds ~100 texts/s on this
machine, so embedding a million distinct texts would take hours). Each memory rests on a
message of its own, as the write path stores them: an event with its words, the evidence
link and the message's vector (the memory's own: a message of one statement), so search
reads the message beside the memory (its ``context`` component) at its real cost.
"""

from __future__ import annotations

import argparse
import random
import time

from _report import Row, report
from _setup import percentile, setup_django
from search_corpus import QUERIES, data_set_slug, sentence

setup_django()

import numpy as np  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from memories.models import Client, Memory, Role, vector_literal  # noqa: E402
from memories.services.embedding.providers import Embedded, get_chain, space_for  # noqa: E402
from memories.services.embedding.vector_index import embedding_index_ensure  # noqa: E402
from memories.services.retrieval import memories_search  # noqa: E402
from memories.services.tenancy.api_keys import api_key_create  # noqa: E402
from memories.services.tenancy.members import member_ensure, tenant_get_or_create  # noqa: E402
from memories.services.write.records import lexemes_count  # noqa: E402
from memories.text import content_hash, fold  # noqa: E402


def client_sizes(total: int, clients: int) -> list[int]:
    """A few very large clients, the rest hundreds to a few thousand memories."""
    big = max(1, clients // 250)
    big_share = total // 4
    sizes = [big_share // big] * big
    rest, rng = total - sum(sizes), random.Random(3)
    weights = [rng.paretovariate(1.5) for _ in range(clients - big)]
    scale = rest / sum(weights)
    sizes += [max(1, int(w * scale)) for w in weights]
    sizes[-1] += total - sum(sizes)
    return sizes


def build(total: int, clients: int):
    slug = data_set_slug(total)
    tenant = tenant_get_or_create(slug=slug)
    user = member_ensure(tenant=tenant, username=slug, role=Role.SUPERVISOR)
    # The space of the model that embeds them, the one search asks in.
    chain = get_chain()
    provider = chain.providers[0]
    space = space_for(
        Embedded(provider.space_provider, provider.model, provider.dimension, vectors=[])
    )
    sizes = client_sizes(total, clients)
    existing = dict(Client.objects.filter(tenant=tenant).values_list("external_ref", "pk"))
    cache: dict[str, np.ndarray] = {}
    started = time.perf_counter()
    for number, size in enumerate(sizes):
        ref = f"c{number:04d}"
        client_id = existing.get(ref) or Client.objects.create(tenant=tenant, external_ref=ref).pk
        have = Memory.objects.filter(client_id=client_id).count()
        if have >= size:
            continue
        rng = random.Random(number * 7919 + have)
        pairs = [(sentence(rng), sentence(rng)) for _ in range(size - have)]
        missing = sorted({text for pair in pairs for text in pair} - cache.keys())
        for start in range(0, len(missing), 512):
            chunk = missing[start : start + 512]
            cache.update(
                zip(chunk, np.asarray(chain.embed(chunk).vectors, dtype=np.float32), strict=True)
            )
        texts = [f"{first} {second}" for first, second in pairs]
        vectors = []
        for first, second in pairs:
            vector = cache[first] + cache[second]
            vectors.append(vector / np.linalg.norm(vector))
        _insert(tenant, client_id, space, texts, vectors, rng)
        if number % max(1, len(sizes) // 20) == 0:
            done = Memory.objects.filter(tenant=tenant).count()
            print(f"  built {done}/{total} memories ({time.perf_counter() - started:.0f} s)")
    t0 = time.perf_counter()
    _messages(tenant, space)
    print(f"  messages: {time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    embedding_index_ensure(space=space)
    with connection.cursor() as cursor:
        for table in ("memory", "memoryembedding", "event", "evidence", "eventembedding"):
            cursor.execute(f"ANALYZE memories_{table}")
    print(f"  HNSW index and ANALYZE: {time.perf_counter() - t0:.0f} s")
    return tenant, user, space, sizes


def _insert(tenant, client_id, space, texts, vectors, rng):
    """COPY into staging, then one INSERT … SELECT that computes the full-text vectors."""
    now = time.time()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS bench_rows (id uuid, content text, folded text, "
            "hash text, seen timestamptz, usage int, vector text) ON COMMIT DELETE ROWS"
        )
        import uuid
        from datetime import UTC, datetime

        with cursor.cursor.copy(
            "COPY bench_rows (id, content, folded, hash, seen, usage, vector) FROM STDIN"
        ) as copy:
            for text, vector in zip(texts, vectors, strict=True):
                seen = datetime.fromtimestamp(now - rng.uniform(0, 365 * 86400), tz=UTC)
                copy.write_row(
                    (
                        uuid.uuid4(),
                        text,
                        fold(text),
                        content_hash(text),
                        seen,
                        rng.randint(0, 30),
                        vector_literal(vector),
                    )
                )
        cursor.execute(
            "INSERT INTO memories_memory (id, tenant_id, client_id, kind, category, title, "
            "content, content_hash, language, attribute, attribute_value, negated, "
            "speaker, subject, occurred_on, occurred_precision, context, "
            "search_vector, observed_at, created_at, source_kind, source_ref, origin_agent, "
            "project_id, task_id, run_id, tier, tier_pinned, status, status_reason, "
            "confidence, importance, freshness, usage_count, dup_count, evidence_count, "
            "last_seen_at, needs_embedding, tags, metadata, updated_at, topic, topic_probability, "
            "topics) "
            "SELECT id, %s, %s, 'semantic', 'fact', '', content, hash, 'en', '', '', false, "
            "'', '', NULL, '', '', "
            "memory_search_vector(setweight(to_tsvector('english', folded), 'A'), %s), "
            "seen, now(), "
            "'import', '', '', '', '', '', "
            "'recall', false, 'active', '', 0.8, 0.5, 1.0, usage, 0, 1, seen, false, '{}', "
            "'{}', now(), '', 0, '{}' FROM bench_rows",
            [tenant.pk, client_id, client_id],
        )
        cursor.execute(
            "INSERT INTO memories_memoryembedding (memory_id, space_id, tenant_id, client_id, "
            "vector, created_at) SELECT id, %s, %s, %s, vector::vector, now() FROM bench_rows",
            [space.pk, tenant.pk, client_id],
        )
        cursor.execute("SELECT array_agg(id) FROM bench_rows")
        lexemes_count(cursor.fetchone()[0] or [])  # the word counts full text ranks with


def _messages(tenant, space) -> None:
    """The message each memory rests on, for the memories that have none yet (a data set
    built before messages had vectors gets them here): its event (the memory's id, its
    words), the evidence link, and the message's vector (the memory's)."""
    missing = (
        "FROM memories_memory m WHERE m.tenant_id = %s AND NOT EXISTS "
        "(SELECT 1 FROM memories_evidence x WHERE x.memory_id = m.id)"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_messages ON COMMIT DROP AS SELECT m.id, m.tenant_id, "
            f"m.client_id, m.content, m.observed_at {missing}",
            [tenant.pk],
        )
        cursor.execute(
            "INSERT INTO memories_event (id, tenant_id, client_id, source, speaker, content, "
            "external_id, observed_at, received_at, origin_agent, project_id, task_id, run_id, "
            "entities, metadata) SELECT id, tenant_id, client_id, 'chat', 'user', content, '', "
            "observed_at, now(), '', '', '', '', '[]', '{}' FROM bench_messages"
        )
        cursor.execute(
            "INSERT INTO memories_evidence (memory_id, event_id, role, action, created_at) "
            "SELECT id, id, 'extracted', 'added', now() FROM bench_messages"
        )
        cursor.execute(
            "INSERT INTO memories_eventembedding (event_id, space_id, tenant_id, client_id, "
            "vector, created_at) SELECT e.memory_id, e.space_id, e.tenant_id, e.client_id, "
            "e.vector, now() FROM memories_memoryembedding e JOIN bench_messages b "
            "ON b.id = e.memory_id WHERE e.space_id = %s",
            [space.pk],
        )


def timed(fn, runs):
    out = []
    for args in runs:
        t0 = time.perf_counter()
        fn(*args)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--full-scan-queries",
        type=int,
        default=20,
        help="the naive full scan takes seconds at 1M rows: time it on fewer queries",
    )
    args = parser.parse_args()

    t0 = time.perf_counter()
    tenant, user, space, sizes = build(args.memories, args.clients)
    print(f"data set ready in {time.perf_counter() - t0:.0f} s")
    _, key = api_key_create(tenant=tenant, user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    chain = get_chain()
    rng = random.Random(11)
    refs = [f"c{n:04d}" for n in range(len(sizes))]
    clients = {
        c.external_ref: c for c in Client.objects.filter(tenant=tenant).select_related("tenant")
    }
    client_ids = {ref: c.pk for ref, c in clients.items()}
    biggest = refs[int(np.argmax(sizes))]
    mixes = {
        "random clients": [(rng.choice(refs), rng.choice(QUERIES)) for _ in range(args.queries)],
        f"largest client ({max(sizes)} memories)": [
            (biggest, rng.choice(QUERIES)) for _ in range(args.queries)
        ],
    }

    def hybrid(ref, query):
        response = api.post(
            "/api/v1/search/", {"client": ref, "query": query, "k": 10}, format="json"
        )
        assert response.status_code == 200, response.content

    def service(ref, query):
        memories_search(client=clients[ref], query=query, k=10)

    def bare(ref, query):
        vector = chain.embed([query], input_type="query").vectors[0]
        literal = vector_literal(vector)
        # One statement: the connection already sets hnsw.iterative_scan (settings.py).
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT memory_id FROM memories_memoryembedding WHERE space_id = %s "  # noqa: S608
                f"AND client_id = %s ORDER BY {space.distance_sql()} LIMIT 10",
                [space.pk, client_ids[ref], literal],
            )
            cursor.fetchall()

    def full_scan(ref, query):
        vector = chain.embed([query], input_type="query").vectors[0]
        literal = vector_literal(vector)
        words = " ".join(dict.fromkeys(w for w in fold(query).split() if len(w) > 1))
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
            cursor.execute(
                "SELECT m.id, 0.55 * (1 - ((e.vector::vector(384)) <=> %s::vector(384))) "
                "+ 0.25 * ts_rank_cd(m.search_vector, "
                "memory_search_query(to_tsvector('english', %s), %s::uuid)) "
                "+ 0.15 * exp(-extract(epoch FROM now() - m.last_seen_at) / 86400 / 14) "
                "+ 0.05 * ln(1 + m.usage_count) / ln(31) AS score "
                "FROM memories_memory m JOIN memories_memoryembedding e ON e.memory_id = m.id "
                "WHERE m.client_id = %s AND m.status = 'active' ORDER BY score DESC LIMIT 10",
                [literal, words, client_ids[ref], client_ids[ref]],
            )
            cursor.fetchall()

    embed_ms = timed(lambda q: chain.embed([q], input_type="query"), [(q,) for q in QUERIES] * 5)
    print(
        f"\n{args.memories} memories, {len(sizes)} clients; query embedding alone: "
        f"p50 {percentile(embed_ms, 50):.2f} ms (included in every column below)"
    )
    methods = {
        "hybrid /search/": hybrid,
        "memories_search()": service,
        "bare HNSW top-10": bare,
        "seed-000 full scan": full_scan,
    }
    table: list[Row] = []
    for label, runs in mixes.items():
        for fn in methods.values():
            fn(*runs[0])  # warm up
        # The first pass meets most clients for the first time: their pages come from the
        # kernel's cache, not PostgreSQL's. The second asks the same again, as an agent
        # does during a conversation; the server has answered these clients before.
        for visit in ("first visit", "second visit"):
            results = interleaved(methods, runs, args.full_scan_queries)
            print(
                f"\n{label}, {visit}: {len(runs)} queries "
                f"({args.full_scan_queries} for the full scan)"
            )
            for name, values in results.items():
                print(
                    f"  {name:<20} p50 {percentile(values, 50):8.2f} ms   "
                    f"p95 {percentile(values, 95):8.2f} ms"
                )
            h, s, b, f = (percentile(results[n], 50) for n in methods)
            for name, values in results.items():
                bare_p50 = None if name.startswith("bare") else round(b, 2)
                p50 = round(percentile(values, 50), 2)
                table.append(Row(f"{label}, {visit}", f"{name} p50 ms", p50, bare_p50))
            print(
                f"  hybrid / bare HNSW: {h / b:.2f}x   "
                f"memories_search() / bare HNSW: {s / b:.2f}x   "
                f"full scan / hybrid: {f / h:.1f}x (p50)"
            )
    report(f"search ({args.memories} memories; baseline: bare HNSW top-10)", table)


def interleaved(methods: dict, runs: list, full_scan_runs: int) -> dict[str, list[float]]:
    """Each query is timed with every method back to back, in a rotating order, so that
    a noisy neighbour slows all columns alike instead of whichever ran at the time."""
    results: dict[str, list[float]] = {name: [] for name in methods}
    names = list(methods)
    for number, args in enumerate(runs):
        order = names[number % len(names) :] + names[: number % len(names)]
        for name in order:
            if name.endswith("full scan") and len(results[name]) >= full_scan_runs:
                continue
            t0 = time.perf_counter()
            methods[name](*args)
            results[name].append((time.perf_counter() - t0) * 1000)
    return results


if __name__ == "__main__":
    main()
