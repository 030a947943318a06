"""Ingest benchmark: N realistic events through the batch endpoint and through single
posts, beside a baseline measured in the same run (the same events stored as plain rows,
without extraction or embedding).

    .venv/bin/python bench/ingest.py [--events 10000] [--batch 500]

Each run uses a fresh tenant, so runs do not deduplicate against each other.
"""

from __future__ import annotations

import argparse
import time
import uuid

from _report import Row, report
from _setup import drain_queue, percentile, setup_django, summary

setup_django()

from corpus import events as make_events  # noqa: E402
from django.db import transaction  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from memories.models import Event, Role  # noqa: E402
from memories.services.embedding.providers import get_chain  # noqa: E402
from memories.services.tenancy.api_keys import api_key_create  # noqa: E402
from memories.services.tenancy.members import member_ensure, tenant_get_or_create  # noqa: E402
from memories.services.write.records import event_record  # noqa: E402


def _tenant(label: str):
    tenant = tenant_get_or_create(slug=f"bench-{label}-{uuid.uuid4().hex[:8]}")
    user = member_ensure(tenant=tenant, username=f"{tenant.slug}-agent", role=Role.SUPERVISOR)
    _, key = api_key_create(tenant=tenant, user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return tenant, client


def baseline_rows(items, batch: int) -> tuple[float, list[float]]:
    from memories.models import Client

    tenant, _ = _tenant("baseline")
    clients = {}
    for item in items:
        if item["client"] not in clients:
            clients[item["client"]] = Client.objects.create(
                tenant=tenant, external_ref=item["client"]
            )
    single_ms = []
    half = len(items) // 2
    start = time.perf_counter()
    for item in items[:half]:
        t0 = time.perf_counter()
        with transaction.atomic():
            event_record(
                client=clients[item["client"]],
                content=item["content"],
                source="chat",
                external_id=item["external_id"] + "-s",
            )
        single_ms.append((time.perf_counter() - t0) * 1000)
    t_batch = time.perf_counter()
    rest = items[half:]
    for start_index in range(0, len(rest), batch):
        chunk = rest[start_index : start_index + batch]
        with transaction.atomic():
            Event.objects.bulk_create(
                [
                    Event(
                        tenant=tenant,
                        client=clients[i["client"]],
                        source="chat",
                        content=i["content"],
                        external_id=i["external_id"],
                    )
                    for i in chunk
                ]
            )
    batch_rate = len(rest) / (time.perf_counter() - t_batch)
    del start
    return batch_rate, single_ms


def through_api(items, batch: int) -> tuple[float, list[float], list[float]]:
    _, client = _tenant("api")
    half = len(items) // 2
    single_ms = []
    for item in items[:half]:
        t0 = time.perf_counter()
        response = client.post("/api/v1/events/", item, format="json")
        single_ms.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 201, response.content
    rest = items[half:]
    batch_ms = []
    t_batch = time.perf_counter()
    for start_index in range(0, len(rest), batch):
        chunk = rest[start_index : start_index + batch]
        t0 = time.perf_counter()
        response = client.post("/api/v1/events/batch/", {"events": chunk}, format="json")
        batch_ms.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 201, response.content
    batch_rate = len(rest) / (time.perf_counter() - t_batch)
    return batch_rate, single_ms, batch_ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    items = make_events(args.events)
    get_chain().embed(["warm up the local model"])  # load time is not ingest time

    print(f"{args.events} events: half as single posts, half in batches of {args.batch}")
    base_rate, base_single = baseline_rows(items, args.batch)
    api_rate, api_single, api_batches = through_api(items, args.batch)
    single_rate = len(api_single) / (sum(api_single) / 1000)
    base_single_rate = len(base_single) / (sum(base_single) / 1000)
    print(f"baseline rows, single : {base_single_rate:8.0f} events/s  {summary(base_single)}")
    print(f"baseline rows, batch  : {base_rate:8.0f} events/s")
    print(f"memoryhub, single post: {single_rate:8.0f} events/s  {summary(api_single)}")
    print(f"memoryhub, batch      : {api_rate:8.0f} events/s  per batch {summary(api_batches)}")
    ratio = percentile(api_single, 95) / percentile(base_single, 95)
    print(f"ratio single p95 memoryhub/baseline: {ratio:.1f}x")
    print(f"ratio batch rate baseline/memoryhub: {base_rate / api_rate:.1f}x")
    print(f"({drain_queue()} queued follow-up tasks dropped: no worker runs during the bench)")
    report(
        "ingest (baseline: the same events as plain rows)",
        [
            Row("single post", "events/s", round(single_rate, 1), round(base_single_rate, 1)),
            Row("single post", "p95 ms", round(percentile(api_single, 95), 2),
                round(percentile(base_single, 95), 2)),
            Row("batch", "events/s", round(api_rate, 1), round(base_rate, 1)),
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
