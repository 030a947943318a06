"""Would ranking each whole message help search? Offline, on a database a benchmark left.

    python bench/message_vectors.py DATA_DIR [--rank dense|bm25]

DATA_DIR is an embedded database that ``bench/locomo.py`` or ``bench/beam.py`` left behind.
Each question is searched as it is today (k = 40), and the client's messages (not the
assistant's) are ranked for it whole: by cosine to the shipped embedder's vector of the
message (``dense``), or by BM25 over the messages' words (``bm25``, as the benchmarks' raw
baselines rank them; it needs ``pip install rank-bm25``). Then, at memory level, the
search's results are fused with the memories citing the nearest messages (reciprocal rank
fusion; constant, weight and depth swept).
Recall is scored as the benchmarks' own eval scripts score it (the evidence the top k cite).
Nothing is written.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import ranking_weights as benchmarks

KS = (5, 10, 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--rank", choices=("dense", "bm25"), default="dense")
    args = parser.parse_args()
    benchmarks.open_database(args.data_dir)
    import numpy as np

    from memories.models import LIVE_STATUSES, Event
    from memories.models.links import Evidence
    from memories.services.embedding import providers
    from memories.services.retrieval import memories_search, ranking_weights

    questions = benchmarks.questions_here()
    chain = providers.get_chain()
    messages = {}
    for client in {q.client for q in questions}:
        said = [e for e in Event.objects.filter(client=client) if e.speaker.lower() != "assistant"]
        if args.rank == "bm25":
            from rank_bm25 import BM25Okapi

            messages[client.pk] = (
                [e.external_id for e in said],
                BM25Okapi([_words(e.content) for e in said]),
            )
            continue
        vectors = []
        for start in range(0, len(said), 64):
            texts = [e.content for e in said[start : start + 64]]
            vectors += chain.embed(texts, input_type="document").vectors
        matrix = np.array(vectors, dtype=np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-9
        messages[client.pk] = ([e.external_id for e in said], matrix)
    cited_by: dict[tuple, set] = {}
    cites: dict = {}
    for memory, owner, external_id in Evidence.objects.filter(
        memory__status__in=LIVE_STATUSES
    ).values_list("memory_id", "event__client_id", "event__external_id"):
        cited_by.setdefault((owner, external_id), set()).add(memory)
        cites.setdefault(memory, set()).add(external_id)

    weights = ranking_weights()
    runs = []
    for qa in questions:
        hits = memories_search(
            client=qa.client, query=qa.q, k=40, weights=weights, record_access=False
        )
        ids, ranker = messages[qa.client.pk]
        if args.rank == "bm25":
            scores = ranker.get_scores(_words(qa.q))
        else:
            query = chain.embed([qa.q], input_type="query").vectors[0]
            scores = ranker @ np.array(query, dtype=np.float32)
        nearest = [ids[i] for i in np.argsort(-scores)[:40]]
        runs.append((qa, [h.memory.pk for h in hits], nearest))

    def recall(ranked: list[set], evidence: set, k: int) -> float:
        found = set().union(*ranked[:k]) if ranked else set()
        return len(evidence & found) / len(evidence)

    def scored(fuse, *, whole_messages: bool = False) -> str:
        figures: dict[int, list[float]] = {k: [] for k in KS}
        for qa, hits, nearest in runs:
            if whole_messages:  # the messages themselves, as the raw baselines rank them
                ranked = [{external_id} for external_id in nearest]
            else:
                ranked = [cites.get(m, set()) for m in fuse(qa, hits, nearest)]
            for k in KS:
                figures[k].append(recall(ranked, qa.ev, k))
        return " ".join(f"{statistics.mean(figures[k]):.3f}" for k in KS)

    def rrf(constant: int, weight: float, depth: int):
        def fuse(qa, hits, nearest):
            score = {m: 1 / (constant + r) for r, m in enumerate(hits)}
            seen: set = set()
            for r, external_id in enumerate(nearest[:depth]):
                for memory in cited_by.get((qa.client.pk, external_id), ()):
                    if memory not in seen:
                        seen.add(memory)
                        score[memory] = score.get(memory, 0) + weight / (constant + r)
            return sorted(score, key=lambda m: -score[m])

        return fuse

    print(f"{len(questions)} questions; recall@{'/'.join(map(str, KS))}")
    print(f"{'search as it is':<28} {scored(lambda qa, hits, nearest: hits)}")
    print(f"{'nearest whole messages':<28} {scored(None, whole_messages=True)}")
    for constant in (10, 60):
        for weight in (0.5, 1.0, 2.0):
            for depth in (10, 20, 40):
                label = f"fused k={constant} w={weight} d={depth}"
                print(f"{label:<28} {scored(rrf(constant, weight, depth))}", flush=True)


def _words(text: str) -> list[str]:
    import re

    return re.findall(r"\w+", text.lower())


if __name__ == "__main__":
    main()
