"""Offline embedder: load time and throughput on 1,000 short sentences on this machine.

.venv/bin/python bench/local_embedder.py
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memories.services.embedding.local_model import THREADS_ENV, LocalEmbedder

SUBJECTS = ["The client", "My adviser", "Our family", "The heir", "A new customer", "She", "He"]
VERBS = ["wants to", "prefers to", "plans to", "asked to", "decided to", "hopes to"]
ACTIONS = [
    "retire early",
    "buy a flat in Milan",
    "sell the bond fund",
    "open a savings account",
    "reduce portfolio risk",
    "move to Madrid",
    "pay off the mortgage",
    "donate to charity",
]
WHEN = ["next year", "this spring", "before the summer", "in 2030", "soon", "after the audit"]


def sentences(count: int) -> list[str]:
    rng = random.Random(0)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(ACTIONS)} {rng.choice(WHEN)}."
        for _ in range(count)
    ]


def main() -> None:
    texts = sentences(1000)
    embedder = LocalEmbedder()
    started = time.perf_counter()
    embedder.load()
    load = time.perf_counter() - started

    started = time.perf_counter()
    embedder.embed(texts[:1])
    first = time.perf_counter() - started

    runs = []
    for _ in range(3):
        started = time.perf_counter()
        embedder.embed(texts)
        runs.append(time.perf_counter() - started)
    best = min(runs)

    started = time.perf_counter()
    for text in texts[:100]:
        embedder.embed([text])
    single = (time.perf_counter() - started) / 100

    print(f"threads: {os.environ.get(THREADS_ENV) or os.cpu_count()} (cpus: {os.cpu_count()})")
    print(f"load (verify sha256 + session): {load:.3f} s")
    print(f"first call, one sentence:       {first * 1000:.1f} ms")
    print(
        f"1,000 short sentences, batched: {best:.2f} s best of 3 -> {len(texts) / best:.0f} "
        f"sentences/s (runs: {', '.join(f'{r:.2f}' for r in runs)} s)"
    )
    print(f"one sentence per call:          {single * 1000:.1f} ms")


if __name__ == "__main__":
    main()
