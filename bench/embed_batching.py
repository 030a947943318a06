"""What batching the embeddings of concurrent requests would buy, measured before building it:
the shipped embedder's CPU time per text when texts are computed alone (as each request
does now) or in batches of 2, 4 and 8 (as a collection window across requests would), and
how far a text's vector moves when it shares a batch.

    .venv/bin/python bench/embed_batching.py [--texts 400] [--rounds 3]

The texts are real: LoCoMo's development questions (what a search embeds, ``query``) and
turns (what a write embeds, ``document``), from ``../shared/benchmarks/``. One thread, as
``serve`` gives each request; CPU seconds of this process, medians over the rounds, batch
sizes taken in turn each round (a busy machine slows all alike).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memories.services.embedding.multilingual import MultilingualEmbedder  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo_dev.json"
SIZES = (1, 2, 4, 8)


def texts(count: int) -> dict[str, list[str]]:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    questions = [qa["question"] for conversation in data for qa in conversation["qa"]]
    turns = [
        turn["text"]
        for conversation in data
        for key, session in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    return {"query": questions[:count], "document": turns[:count]}


def cpu_per_text(embedder: MultilingualEmbedder, items: list[str], kind: str) -> float:
    started = time.process_time()
    for at in range(0, len(items), embedder.batch_size):
        embedder.embed(items[at : at + embedder.batch_size], input_type=kind)
    return (time.process_time() - started) / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    corpus = texts(args.texts)
    embedders = {size: MultilingualEmbedder(batch_size=size, threads=1) for size in SIZES}
    for embedder in embedders.values():
        embedder.load()
        embedder.embed(["warm up"], input_type="query")
    timings: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.rounds):
        for kind, items in corpus.items():
            for size, embedder in embedders.items():
                timings.setdefault((kind, size), []).append(cpu_per_text(embedder, items, kind))
    print(f"{args.texts} texts each, one thread, CPU ms per text (median of {args.rounds})")
    for kind, items in corpus.items():
        alone = np.array(
            [embedders[1].embed([t], input_type=kind)[0] for t in items], dtype=np.float32
        )
        base = statistics.median(timings[(kind, 1)])
        for size in SIZES:
            batched = np.array(
                [
                    vector
                    for at in range(0, len(items), size)
                    for vector in embedders[size].embed(items[at : at + size], input_type=kind)
                ],
                dtype=np.float32,
            )
            cosines = (alone * batched).sum(axis=1)
            cost = statistics.median(timings[(kind, size)])
            print(
                f"{kind:<8} batch {size}: {cost * 1000:6.2f} ms/text ({cost / base:4.2f}x alone)"
                f"  cosine to alone: mean {cosines.mean():.4f}, min {cosines.min():.4f}"
            )


if __name__ == "__main__":
    main()
