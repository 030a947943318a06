"""Where the time of a POST /api/v1/search/ goes, phase by phase, on the data set that
bench/search.py builds (run that first with the same --memories).

    .venv/bin/python bench/search_phases.py --memories 1000000 [--queries 300] [--largest]

Each phase is timed by wrapping the function that does it (the wrappers cost a few
microseconds each); p50 and mean per phase, and beside them an authenticated,
rate-limited GET /api/v1/tools/, which does no work of its own: the API's floor.
"""

from __future__ import annotations

import collections
import functools
import random
import statistics
import time
from collections import Counter

from _setup import percentile, setup_django

setup_django()

from rest_framework.test import APIClient  # noqa: E402
from search_corpus import QUERIES, built_data_set, data_set_parser  # noqa: E402

import memories.api.search as api_module  # noqa: E402
import memories.services.retrieval as retrieval  # noqa: E402
from memories import permissions  # noqa: E402
from memories.api import authentication, throttling  # noqa: E402
from memories.api.inputs import SearchInSerializer  # noqa: E402
from memories.models import Client, Memory, Role  # noqa: E402
from memories.services.tenancy.api_keys import api_key_create  # noqa: E402
from memories.services.tenancy.members import member_ensure  # noqa: E402

TIMES: dict[str, list[float]] = collections.defaultdict(list)


def timed(owner, name: str, label: str) -> None:
    function = getattr(owner, name)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMES[label].append((time.perf_counter() - started) * 1000)

    setattr(owner, name, wrapper)


def main() -> None:
    parser = data_set_parser()
    parser.add_argument("--largest", action="store_true", help="the largest client only")
    args = parser.parse_args()
    tenant = built_data_set(args.memories)
    user = member_ensure(tenant=tenant, username=tenant.slug, role=Role.SUPERVISOR)
    _, key = api_key_create(tenant=tenant, user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    refs = list(Client.objects.filter(tenant=tenant).values_list("external_ref", flat=True))
    if args.largest:
        sizes = Counter(
            Memory.objects.filter(tenant=tenant).values_list("client__external_ref", flat=True)
        )
        refs = [max(refs, key=lambda ref: sizes[ref])]
    rng = random.Random(11)
    runs = [(rng.choice(refs), rng.choice(QUERIES)) for _ in range(args.queries)]

    timed(authentication, "api_key_verify", "API key, tenant, user, role")
    timed(throttling.ReadRateThrottle, "allow_request", "rate limit")
    timed(SearchInSerializer, "is_valid", "input validation")
    timed(permissions, "client_for_read", "client")
    timed(retrieval, "_query_vector", "query embedding")
    timed(retrieval, "_scored_candidates", "search statement + rows")
    timed(retrieval, "_select", "redundancy-aware pick")
    timed(retrieval, "_answer_complete", "access log + evidence")
    timed(api_module, "memories_search", "memories_search() in all")

    def search(ref, query):
        response = api.post(
            "/api/v1/search/", {"client": ref, "query": query, "k": 10}, format="json"
        )
        assert response.status_code == 200, response.content

    def floor():
        assert api.get("/api/v1/tools/").status_code == 200

    for ref, query in runs[:20]:  # warm up
        search(ref, query)
        floor()
    TIMES.clear()
    totals, floors = [], []
    for ref, query in runs:
        started = time.perf_counter()
        search(ref, query)
        totals.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        floor()
        floors.append((time.perf_counter() - started) * 1000)

    whose = "the largest client" if args.largest else "random clients"
    print(f"\n{args.memories} memories, {len(runs)} searches (k=10), {whose}")
    for label, values in [*TIMES.items(), ("GET /api/v1/tools/ (floor)", floors)]:
        print(
            f"  {label:<30} p50 {percentile(values, 50):7.2f} ms   "
            f"mean {statistics.fmean(values):7.2f} ms"
        )
    print(f"  {'POST /api/v1/search/ in all':<30} p50 {percentile(totals, 50):7.2f} ms")


if __name__ == "__main__":
    main()
