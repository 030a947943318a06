"""Recall at an equal reading budget: memoryhub's answer against the raw-message baselines
when each may return as many characters, not as many results. Offline, on a database a
benchmark left.

    python bench/equal_characters.py DATA_DIR [--budget 1000 2000 4000]

DATA_DIR is an embedded database that ``bench/beam.py`` or ``bench/locomo.py`` left behind.
A raw baseline's result is a whole message (BEAM: a user's message, code and all; LoCoMo: a
turn), memoryhub's a memory: ten of each are not the same amount for an agent to read. So
beside recall@10 and the median characters of each top 10, each retriever returns its
results in rank order while they fit in the budget (the first always, however long: that
favours the baselines, whose messages are the longer), and the evidence cited within it is
counted, as ``beam_eval.py`` and
``locomo_eval.py`` count it at k. The baselines are the benchmarks' own (``rankers`` of
``beam_baselines.py``; BM25, dense with the shipped MiniLM and RRF as
``locomo_baselines.py`` builds them), over the same documents, on the same questions.
Nothing is written; it needs ``pip install rank-bm25``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path

import ranking_weights as benchmarks

MODEL = benchmarks.ROOT / "memories" / "local_model"
BEAM_DIR = benchmarks.BEAM.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--budget", type=int, nargs="+", default=[1000, 2000, 4000])
    args = parser.parse_args()
    benchmarks.open_database(args.data_dir)
    sys.path.insert(0, str(BEAM_DIR))
    sys.path.insert(0, str(benchmarks.BENCHMARK))
    from beam_baselines import rankers
    from locomo_baselines import Encoder

    encoder = Encoder(str(MODEL / "model.onnx"), str(MODEL / "tokenizer.json"))
    questions = benchmarks.questions_here()
    documents = raw_documents(questions)
    figures: dict[str, dict[str, list[float]]] = {}
    ranking: dict[object, dict] = {}  # client → its retrievers, built once
    for qa in questions:
        ids, texts = documents[qa.client.pk]
        if qa.client.pk not in ranking:
            ranking[qa.client.pk] = rankers(texts, encoder)
        results = {"memoryhub": memoryhub_ranked(qa)}
        for name, rank in ranking[qa.client.pk].items():
            results[f"raw {name}"] = [([ids[i]], texts[i]) for i in rank(qa.q)[:50]]
        for name, ranked in results.items():
            row = figures.setdefault(name, {})
            row.setdefault("recall@10", []).append(recall_of(qa.ev, ranked[:10]))
            row.setdefault("chars@10", []).append(sum(len(text) for _, text in ranked[:10]))
            for budget in args.budget:
                row.setdefault(f"@{budget} chars", []).append(
                    recall_of(qa.ev, _within(ranked, budget))
                )
    columns = ["recall@10", "chars@10", *(f"@{b} chars" for b in args.budget)]
    print(f"{len(questions)} questions; recall of the evidence within each budget")
    print(f"{'retriever':12}" + "".join(f"{c:>14}" for c in columns))
    for name, row in figures.items():
        cells = [
            f"{int(statistics.median(row[c])):>14}"
            if c == "chars@10"
            else f"{statistics.mean(row[c]):>14.3f}"
            for c in columns
        ]
        print(f"{name:12}" + "".join(cells))


def raw_documents(questions) -> dict:
    """Per client: the raw documents the baselines rank (ids, texts), as their scripts make
    them."""
    clients = {qa.client.pk: qa.client for qa in questions}
    refs = {c.external_ref.rsplit("-", 1)[0]: pk for pk, c in clients.items()}
    out: dict = {}
    if any(ref.startswith("locomo-") for ref in refs):
        from locomo_eval import turns_of

        for sample in json.loads((benchmarks.BENCHMARK / "locomo_dev.json").read_text()):
            if (pk := refs.get(f"locomo-{sample['sample_id']}")) is not None:
                turns = turns_of(sample)
                out[pk] = (
                    [t["id"] for t in turns],
                    [f"{t['speaker']}: {t['text']}" for t in turns],
                )
        return out
    for chat in json.loads(gzip.decompress(benchmarks.BEAM.read_bytes())):
        if (pk := refs.get(str(chat["chat"]))) is not None:
            users = [m for m in chat["messages"] if m["role"] == "user" and m["text"].strip()]
            out[pk] = ([f"m{m['id']}" for m in users], [m["text"] for m in users])
    return out


def memoryhub_ranked(qa) -> list[tuple[list[str], str]]:
    from memories.services.retrieval import memories_search

    hits = memories_search(
        client=qa.client, query=qa.q, k=50, record_access=False, with_evidence=True
    )
    return [([e["external_id"] for e in hit.evidence], hit.memory.content) for hit in hits]


def _within(ranked: list[tuple[list[str], str]], budget: int) -> list[tuple[list[str], str]]:
    """The results that fit in ``budget`` characters, in rank order; the first always."""
    taken: list[tuple[list[str], str]] = []
    used = 0
    for cited, text in ranked:
        if taken and used + len(text) > budget:
            break
        taken.append((cited, text))
        used += len(text)
    return taken


def recall_of(evidence: set[str], ranked: list[tuple[list[str], str]]) -> float:
    cited = {e for ids, _ in ranked for e in ids}
    return len(evidence & cited) / len(evidence)


if __name__ == "__main__":
    main()
