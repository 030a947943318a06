"""Encryption benchmark: the cost of an encrypted tenant beside a plaintext one, in the
same run, on the same corpus (bench/corpus.py), timed interleaved so that load on the
machine falls on both alike.

    .venv/bin/python bench/encryption.py [--events 2000] [--clients 40] [--queries 200]

Reports, for each mode: ingest time per batch of events (extraction, embedding, dedup,
sealing or not), hybrid search (vector + text), text-only search (the blind index against
PostgreSQL's own stemming), and loading every memory of the tenant (opening each sealed
field). Ratios are encrypted / plaintext. Each run makes two new tenants in the bench
database (never the development one); with no MEMORYHUB_MASTER_KEY set, a random one is
used for the run.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import statistics
import time
import uuid

os.environ.setdefault("MEMORYHUB_MASTER_KEY", base64.b64encode(os.urandom(32)).decode())

from _report import Row, report
from _setup import drain_queue, setup_django, summary

setup_django()

from corpus import events  # noqa: E402

from memories.models import Memory, Role  # noqa: E402
from memories.services.retrieval import memories_search  # noqa: E402
from memories.services.tenancy.encryption import tenant_create  # noqa: E402
from memories.services.tenancy.members import member_ensure  # noqa: E402
from memories.services.write.ingest import EventInput, events_ingest  # noqa: E402

QUERIES = [
    "how should we contact her",
    "where does he live",
    "employer and work",
    "daughter university",
    "buy a house",
    "retirement plans",
    "crypto investments",
    "risk appetite",
    "accountant tax return",
    "travel plans",
    "pension transfer",
    "meeting time afternoon",
    "casa a Milano",
    "jubilación",
]


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    run = uuid.uuid4().hex[:8]
    modes = {}
    for mode, encrypted in (("plaintext", False), ("encrypted", True)):
        tenant = tenant_create(slug=f"bench-{mode}-{run}", encrypted=encrypted)
        user = member_ensure(tenant=tenant, username=f"bench-{mode}-{run}", role=Role.SUPERVISOR)
        modes[mode] = (tenant, user)

    corpus = events(args.events, clients=args.clients)
    batches = [corpus[i : i + args.batch] for i in range(0, len(corpus), args.batch)]
    ingest: dict[str, list[float]] = {mode: [] for mode in modes}
    for index, batch in enumerate(batches):
        order = list(modes) if index % 2 == 0 else list(reversed(modes))
        for mode in order:
            tenant, user = modes[mode]
            items = [
                EventInput(
                    client=e["client"],
                    content=e["content"],
                    session=e.get("session", ""),
                    speaker="client",
                    observed_at=e.get("observed_at"),
                    external_id=e.get("external_id", ""),
                )
                for e in batch
            ]
            start = time.perf_counter()
            events_ingest(user=user, tenant=tenant, items=items)
            ingest[mode].append(_ms(start) / len(batch))
    drain_queue()

    rng = random.Random(3)
    refs = sorted({e["client"] for e in corpus})
    clients = {
        mode: {c.external_ref: c for c in tenant.clients.all()}
        for mode, (tenant, _) in modes.items()
    }
    hybrid: dict[str, list[float]] = {mode: [] for mode in modes}
    text: dict[str, list[float]] = {mode: [] for mode in modes}
    for index in range(args.queries):
        ref, query = rng.choice(refs), rng.choice(QUERIES)
        order = list(modes) if index % 2 == 0 else list(reversed(modes))
        for mode in order:
            client = clients[mode][ref]
            start = time.perf_counter()
            memories_search(client=client, query=query, k=10, record_access=False)
            hybrid[mode].append(_ms(start))
            start = time.perf_counter()
            memories_search(
                client=client, query=query, k=10, weights={"text": 1.0}, record_access=False
            )
            text[mode].append(_ms(start))

    load: dict[str, list[float]] = {mode: [] for mode in modes}
    for index in range(5):
        order = list(modes) if index % 2 == 0 else list(reversed(modes))
        for mode in order:
            start = time.perf_counter()
            rows = list(
                Memory.objects.filter(tenant=modes[mode][0]).values_list("content", "title")
            )
            load[mode].append(_ms(start))
    memories = {mode: Memory.objects.filter(tenant=t).count() for mode, (t, _) in modes.items()}

    print(f"corpus: {args.events} events, {args.clients} clients, batches of {args.batch}")
    print(f"memories: plaintext {memories['plaintext']}, encrypted {memories['encrypted']}")
    table = []
    for label, data in (
        ("ingest per event", ingest),
        ("search, hybrid", hybrid),
        ("search, text only", text),
        (f"load all {len(rows)} memories", load),
    ):
        print(label)
        for mode in modes:
            print(f"  {mode:9}  {summary(data[mode])}")
        ratio = statistics.fmean(data["encrypted"]) / statistics.fmean(data["plaintext"])
        median = statistics.median(data["encrypted"]) / statistics.median(data["plaintext"])
        print(f"  ratio      mean {ratio:5.2f}×  median {median:5.2f}×")
        plain, sealed = (round(statistics.median(data[m]), 2) for m in ("plaintext", "encrypted"))
        table.append(Row("encrypted", f"{label}: median ms", sealed, plain))
    report("encryption (baseline: a plaintext tenant)", table)


if __name__ == "__main__":
    main()
