"""Where a search's SQL time goes, on the data set that bench/search.py builds (run that
first with the same --memories).

    .venv/bin/python bench/search_statement.py --memories 1000000 [--queries 300]
                                               [--largest] [--plan]

For random clients (or the largest alone, ``--largest``), interleaved per query on the
search's own cursor (bound parameters, binary rows): the usual search statement, the same
statement without its full-text branch, and a bare pgvector top-10 of the client's
vectors; then the statement's planning and execution times from EXPLAIN ANALYZE, and with
``--plan`` the plan of the median search. Query vectors are computed before timing: no
column includes the embedding.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter

from _setup import percentile, setup_django
from search_corpus import QUERIES, built_data_set, data_set_parser

setup_django()

from django.utils import timezone  # noqa: E402

from memories.db import bound_cursor  # noqa: E402
from memories.models import Client, Memory, vector_literal  # noqa: E402
from memories.services import retrieval  # noqa: E402
from memories.services.retrieval.answers import expected_answer  # noqa: E402
from memories.services.retrieval.statement import Search, candidates_statement  # noqa: E402


def main() -> None:
    parser = data_set_parser()
    parser.add_argument("--largest", action="store_true", help="the largest client only")
    parser.add_argument("--plan", action="store_true", help="print the median search's plan")
    args = parser.parse_args()
    tenant = built_data_set(args.memories)
    clients = list(Client.objects.filter(tenant=tenant).select_related("tenant"))
    if args.largest:
        sizes = Counter(Memory.objects.filter(tenant=tenant).values_list("client_id", flat=True))
        clients = [max(clients, key=lambda c: sizes[c.pk])]
    rng = random.Random(5)
    searches = [_search(rng.choice(clients), rng.choice(QUERIES)) for _ in range(args.queries)]

    def statement(search: Search) -> None:
        _run(*candidates_statement(search, thorough=False))

    def without_text(search: Search) -> None:
        _run(*candidates_statement(dataclasses.replace(search, words=""), thorough=False))

    def bare(search: Search) -> None:
        space = search.space
        assert space is not None  # the local model's space: every bench memory has a vector
        _run(
            "SELECT memory_id FROM memories_memoryembedding WHERE space_id = %s "  # noqa: S608
            f"AND client_id = %s ORDER BY {space.distance_sql()} LIMIT 10",
            [space.pk, search.client.pk, vector_literal(search.vector)],
        )

    methods = {
        "search statement": statement,
        "without its text branch": without_text,
        "bare HNSW top-10": bare,
    }
    names = list(methods)
    # As in bench/search.py: a first visit (most clients' pages not yet in PostgreSQL's
    # cache), then the same searches again.
    for visit in ("first visit", "second visit"):
        times: dict[str, list[float]] = {name: [] for name in methods}
        for number, search in enumerate(searches):
            for name in names[number % len(names) :] + names[: number % len(names)]:
                started = time.perf_counter()
                methods[name](search)
                times[name].append((time.perf_counter() - started) * 1000)
        whose = "largest-client" if args.largest else "random-client"
        print(f"\n{args.memories} memories, {len(searches)} {whose} searches, {visit}")
        for name, values in times.items():
            p50, p95 = percentile(values, 50), percentile(values, 95)
            print(f"  {name:<26} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms")
    planning, execution, plans = [], [], []
    for search in searches:
        sql, params = candidates_statement(search, thorough=False)
        with bound_cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, SUMMARY) " + sql, params)
            lines = [row[0] for row in cursor.fetchall()]
        planning.append(_milliseconds(lines, "Planning Time"))
        execution.append(_milliseconds(lines, "Execution Time"))
        plans.append((execution[-1], lines))
    plan, run = percentile(planning, 50), percentile(execution, 50)
    print(f"  search statement, EXPLAIN ANALYZE (a third pass): planning p50 {plan:.2f} ms,")
    print(f"  execution p50 {run:.2f} ms")
    if args.plan:
        print("\n".join(sorted(plans, key=lambda p: p[0])[len(plans) // 2][1]))


def _search(client, query: str) -> Search:
    space, vector = retrieval._query_vector(client, query)
    words, blind_readings = retrieval._query_words(client.tenant, query)
    return Search(
        client=client,
        space=space,
        vector=vector,
        words=words,
        speakers=(),
        expected=expected_answer(query),
        text_config=client.tenant.language,
        filters=retrieval.NO_FILTERS,
        weights=retrieval.ranking_weights(),
        now=timezone.now(),
        k=10,
        blind_readings=blind_readings,
    )


def _run(sql: str, params: list) -> None:
    with bound_cursor() as cursor:
        cursor.execute(sql, params)
        cursor.fetchall()


def _milliseconds(lines: list[str], label: str) -> float:
    return float(next(line for line in lines if line.startswith(label)).split()[2])


if __name__ == "__main__":
    main()
