"""How far a retriever could go on a benchmark's questions: each retriever's recall@10
beside the best of them chosen for each question with hindsight, and the evidence none of
them ranks at all. Offline, on a database a benchmark left.

    python bench/recall_ceiling.py DATA_DIR

DATA_DIR is an embedded database that ``bench/beam.py`` or ``bench/locomo.py`` left behind.
The retrievers are memoryhub's search and the benchmark's own raw-message baselines (BM25,
dense with the shipped MiniLM, and their RRF: ``rankers`` of ``beam_baselines.py``), on the
same questions, as ``bench/equal_characters.py`` runs them. For each question type (BEAM)
or category (LoCoMo):

- each retriever's recall@10, as ``beam_eval.py`` and ``locomo_eval.py`` count it;
- ``hindsight``: the mean over questions of the best of the four at 10. No single retriever
  can know which of them is right for a question, so this is above what any of them does;
- ``in none@50``: the share of the evidence that is in none of their first 50.

A target far above ``hindsight`` asks for a retriever of another kind, not a better
weighting of these; evidence in none of their first 50 is what no ranking of these
candidates finds. ``--show N`` prints N of those (a fixed sample) with their questions, to
read whether the message answers what was asked. Nothing is written; it needs
``pip install rank-bm25``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

import equal_characters as shared
import ranking_weights as benchmarks

RETRIEVERS = ("memoryhub", "raw bm25", "raw dense", "raw rrf")
DEPTH = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print N evidence none ranks")
    args = parser.parse_args()
    benchmarks.open_database(args.data_dir)
    sys.path.insert(0, str(shared.BEAM_DIR))
    sys.path.insert(0, str(benchmarks.BENCHMARK))
    from beam_baselines import rankers
    from locomo_baselines import Encoder

    encoder = Encoder(str(shared.MODEL / "model.onnx"), str(shared.MODEL / "tokenizer.json"))
    questions = benchmarks.questions_here()
    documents = shared.raw_documents(questions)
    ranking: dict[object, dict] = {}  # client → its raw retrievers, built once
    rows: dict[str, list[tuple[dict[str, float], float]]] = {}
    unranked: list[tuple[str, str, str]] = []  # (kind, question, evidence text)
    for qa in questions:
        ids, texts = documents[qa.client.pk]
        if qa.client.pk not in ranking:
            ranking[qa.client.pk] = rankers(texts, encoder)
        results = {"memoryhub": shared.memoryhub_ranked(qa)}
        for name, rank in ranking[qa.client.pk].items():
            results[f"raw {name}"] = [([ids[i]], texts[i]) for i in rank(qa.q)[:DEPTH]]
        at_10 = {name: shared.recall_of(qa.ev, ranked[:10]) for name, ranked in results.items()}
        found = {e for ranked in results.values() for ids, _ in ranked[:DEPTH] for e in ids}
        missed = len(qa.ev - found) / len(qa.ev)
        text = dict(zip(ids, texts, strict=True))
        unranked += [(qa.kind, qa.q, text.get(e, "")) for e in sorted(qa.ev - found)]
        for group in ("all", qa.kind):
            rows.setdefault(group, []).append((at_10, missed))
    print(f"{len(questions)} questions; recall@10, the best of the four per question, and the")
    print(f"evidence in none of their first {DEPTH}")
    header = ["questions", *RETRIEVERS, "hindsight", f"in none@{DEPTH}"]
    print(f"{'':26}" + "".join(f"{c:>11}" for c in header))
    for group, found_rows in sorted(rows.items(), key=lambda item: (item[0] != "all", item[0])):
        cells = [f"{len(found_rows):>11}"]
        cells += [
            f"{statistics.mean(r[name] for r, _ in found_rows):>11.3f}" for name in RETRIEVERS
        ]
        cells.append(f"{statistics.mean(max(r.values()) for r, _ in found_rows):>11.3f}")
        cells.append(f"{statistics.mean(m for _, m in found_rows):>11.3f}")
        print(f"{group[:26]:26}" + "".join(cells))
    for kind, question, evidence in random.Random(26).sample(
        unranked, min(args.show, len(unranked))
    ):
        print(f"\n[{kind}] {question}\n    evidence: {' '.join(evidence.split())[:300]}")


if __name__ == "__main__":
    main()
