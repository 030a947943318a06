"""The offline embedders side by side: load time, conversational turns per second in one
call, and one text per call (a search's query), on this machine, in one run.

    .venv/bin/python bench/local_embedder.py [--turns 600] [--rounds 3] [--threads N]

The turns are real ones: LoCoMo's development conversations (``../shared/benchmarks/``;
not in the repository), else the team's own ``memory_eval`` conversations. Each model is
measured in turn, round after round (a busy machine slows both alike); the figures are
medians, and the ratio is against ``local-minilm``, the embedder shipped before
multilingual-e5-small. ``--threads`` sets ``MEMORYHUB_LOCAL_EMBEDDER_THREADS`` (default:
every core, as a worker or a script embeds; ``serve`` gives each request one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _report import Row, report  # noqa: E402

from memories.services.embedding.local_model import (  # noqa: E402
    THREADS_ENV,
    OnnxEmbedder,
    embedder_class,
)

LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo_dev.json"
OWN = ROOT / "memories" / "evaluation" / "data" / "conversations.json"
MODELS = ("local-minilm", "local")


def turns(count: int) -> tuple[str, list[str]]:
    if LOCOMO.is_file():
        found: list[str] = []

        def walk(node) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("text"), str):
                    found.append(node["text"])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(json.loads(LOCOMO.read_text(encoding="utf-8")))
        return "LoCoMo turns", found[:count]
    data = json.loads(OWN.read_text(encoding="utf-8"))
    texts = [e["content"] for c in data["clients"] for s in c["sessions"] for e in s["events"]]
    return "memory_eval turns", texts[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()
    if args.threads:
        os.environ[THREADS_ENV] = str(args.threads)
    source, texts = turns(args.turns)
    embedders: dict[str, OnnxEmbedder] = {name: embedder_class(name)() for name in MODELS}
    load: dict[str, float] = {}
    for name, embedder in embedders.items():
        started = time.perf_counter()
        embedder.load()
        load[name] = time.perf_counter() - started
        embedder.embed(texts[:8])  # warm
    batched: dict[str, list[float]] = {name: [] for name in MODELS}
    single: dict[str, list[float]] = {name: [] for name in MODELS}
    for _ in range(args.rounds):
        for name, embedder in embedders.items():
            started = time.perf_counter()
            embedder.embed(texts)
            batched[name].append(len(texts) / (time.perf_counter() - started))
            started = time.perf_counter()
            for text in texts[:50]:
                embedder.embed([text], input_type="query")
            single[name].append((time.perf_counter() - started) / 50 * 1000)
    threads = embedders["local"].threads
    print(
        f"{len(texts)} {source}, {args.rounds} rounds, {threads} threads (cpus: {os.cpu_count()})"
    )
    print(
        f"{'model':28} {'load s':>7} {'turns/s':>8} {'ratio':>6} {'one text ms':>12} {'ratio':>6}"
    )
    base_rate = statistics.median(batched["local-minilm"])
    base_single = statistics.median(single["local-minilm"])
    table: list[Row] = []
    for name, embedder in embedders.items():
        rate, one = statistics.median(batched[name]), statistics.median(single[name])
        print(
            f"{embedder.model:28} {load[name]:7.2f} {rate:8.1f} {rate / base_rate:6.2f} "
            f"{one:12.1f} {one / base_single:6.2f}"
        )
        base = name != "local-minilm"
        table.append(Row(name, "turns/s", round(rate, 1), round(base_rate, 1) if base else None))
        table.append(
            Row(name, "one text ms", round(one, 2), round(base_single, 2) if base else None)
        )
    report("local_embedder (baseline: local-minilm)", table)


if __name__ == "__main__":
    main()
