"""Ingest cost on real conversations: LoCoMo's turns or BEAM's messages through
``/api/v1/events/batch/``, per configuration, on a fresh server each time.

    python bench/ingest_real.py [--source locomo|beam] [--limit 1000] [--batch 100]
                                [--rounds 3] [--tree DIR ...]
                                [--config LABEL=VAR=VALUE[,VAR=VALUE] ...] [--json OUT]

The first ``--limit`` events of the source, built as its eval script builds them (one client
per conversation, its sessions, dates and external ids), are posted in order, one
conversation at a time, in batches of at most ``--batch`` events or 400 KB, as an agent
would. Every round starts each configuration on a fresh server (bench/_server.py: embedded
database, ``serve --no-demo --no-worker``, throttling off) and warms it up (a few small
concurrent batches of another client, so every web process has loaded its model) before the
timed part. Rounds alternate the order (a b, b a, ...) so a noisy machine hits each alike.
It prints events/s per configuration (the median of the rounds, and each round's) and the
ratio to the first configuration.

bench/ingest.py's synthetic corpus ingests about ten times faster than real conversations
(short, uniform sentences): this is the honest figure. The data sets live outside the
repository (``../shared/benchmarks/``, or ``--benchmark-dir``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _report import report, rows_beside
from _server import BENCHMARKS, Server, add_arguments, configurations, serve

MAX_BYTES = 400_000  # what beam_eval.py keeps a batch under


def conversations(source: str, folder: Path) -> list[list[dict]]:
    """The source's events, one list per client."""
    sys.path.insert(0, str(folder))
    out: list[list[dict]] = []
    if source == "locomo":
        from locomo_eval import iso, turns_of

        for sample in json.loads((folder / "locomo_dev.json").read_text()):
            client = f"locomo-{sample['sample_id']}"
            out.append(
                [
                    {
                        "client": client,
                        "session": f"session-{t['session']}",
                        "source": "chat",
                        "speaker": t["speaker"],
                        "content": t["text"],
                        "external_id": t["id"],
                        "observed_at": iso(t["date"]),
                    }
                    for t in turns_of(sample)
                ]
            )
    else:
        from beam_eval import anchor_iso

        with gzip.open(folder / "beam_500k_dev.json.gz", "rt") as f:
            chats = json.load(f)
        for chat in chats:
            events, when = [], "2024-01-01T09:00:00Z"
            for m in chat["messages"]:
                when = anchor_iso(m.get("anchor")) or when
                if m["text"].strip():
                    events.append(
                        {
                            "client": chat["chat"],
                            "session": f"batch-{m['batch']}",
                            "source": "chat",
                            "speaker": m["role"],
                            "content": m["text"][:65000],
                            "external_id": f"m{m['id']}",
                            "observed_at": when,
                        }
                    )
            out.append(events)
    return out


def first(clients: list[list[dict]], limit: int) -> list[list[dict]]:
    """The first ``limit`` events, still one list per client."""
    taken: list[list[dict]] = []
    for events in clients:
        if limit <= 0:
            break
        taken.append(events[:limit])
        limit -= len(taken[-1])
    return taken


def batches(events: list[dict], size: int) -> Iterator[list[dict]]:
    i = 0
    while i < len(events):
        j, total = i, 0
        while j < len(events) and j - i < size and total < MAX_BYTES:
            total += len(events[j]["content"])
            j += 1
        yield events[i:j]
        i = j


def post(server: Server, events: list[dict]) -> None:
    body = json.dumps({"events": events}).encode()
    for _ in range(30):
        request = urllib.request.Request(  # noqa: S310
            server.url + "api/v1/events/batch/",
            data=body,
            headers={"Authorization": f"Bearer {server.key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=900) as answer:  # noqa: S310
                answer.read()
                return
        except urllib.error.HTTPError as error:
            if error.code not in (429, 503):
                raise SystemExit(
                    f"batch ingest failed: {error.code} {error.read()[:500]!r}"
                ) from None
            time.sleep(float(error.headers.get("Retry-After") or 5))
    raise SystemExit("batch ingest still refused after 30 tries")


def warm_up(server: Server, events: list[dict]) -> None:
    """Small batches of a client of its own, four at once: each web process loads its
    embedder (and its caches) on its first request, which is not the steady state."""
    spare = [
        {**e, "client": "warm-up", "external_id": f"warm-up-{i}"} for i, e in enumerate(events)
    ]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: post(server, spare[i : i + 2]), range(0, len(spare), 2)))


def ingest(server: Server, clients: list[list[dict]], size: int) -> float:
    """Seconds to post every client's events, one batch after another."""
    started = time.perf_counter()
    for events in clients:
        for batch in batches(events, size):
            post(server, batch)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--source", choices=["locomo", "beam"], default="locomo")
    parser.add_argument("--limit", type=int, default=1000, help="events to post per run")
    parser.add_argument("--batch", type=int, default=100, help="events per batch at most")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARKS)
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    runs = configurations(args)
    every = conversations(args.source, args.benchmark_dir / args.source)
    clients = first(every, args.limit)
    # The warm-up posts events that are not timed (past the limit when the source has more).
    spare = [e for c in every for e in c][args.limit : args.limit + 8] or clients[0][:8]
    events = sum(map(len, clients))
    chars = sum(len(e["content"]) for c in clients for e in c)
    print(
        f"{args.source}: {events} events of {len(clients)} conversation(s), "
        f"{chars / events:.0f} characters each on average, batches of at most {args.batch}",
        flush=True,
    )
    rates: dict[str, list[float]] = {c.label: [] for c in runs}
    for round_ in range(args.rounds):
        for configuration in runs if round_ % 2 == 0 else runs[::-1]:
            with serve(configuration, tenant="ingest") as server:
                warm_up(server, spare)
                seconds = ingest(server, clients, args.batch)
            rates[configuration.label].append(round(events / seconds, 1))
            print(
                f"round {round_ + 1} {configuration.label}: {events / seconds:.1f} events/s",
                flush=True,
            )
    medians = {label: round(statistics.median(r), 1) for label, r in rates.items()}
    base = medians[runs[0].label]
    width = max(len(label) for label in medians)
    ratio = f"ratio to {runs[0].label}"
    print(f"\n{'':{width}}  events/s (median)  {ratio}  rounds")
    for label, median in medians.items():
        print(f"{label:{width}}  {median:17.1f}  {median / base:{len(ratio)}.2f}  {rates[label]}")
    figures = {label: {"events_per_s_median": median} for label, median in medians.items()}
    trees = {c.label: c.tree for c in runs}
    report(f"ingest_real ({args.source}, {events} events)", rows_beside(figures, trees=trees))
    if args.json:
        document = {
            "source": args.source,
            "events": events,
            "characters_per_event": round(chars / events),
            "batch": args.batch,
            "configurations": {
                c.label: {
                    "tree": str(c.tree),
                    "environment": c.environment,
                    "events_per_s_median": medians[c.label],
                    "ratio_to_first": round(medians[c.label] / base, 3),
                    "events_per_s_rounds": rates[c.label],
                }
                for c in runs
            },
        }
        args.json.write_text(json.dumps(document, indent=1))


if __name__ == "__main__":
    main()
