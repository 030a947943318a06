"""Ranking weights against two data sets in one run: LoCoMo (conversations nobody here
wrote) and the shipped ``memory_eval`` set (facts that change over time: the stale rate).

    python bench/ranking_weights.py DATA_DIR [--weights '{"name": {...}, ...}']

DATA_DIR is an embedded database that ``bench/locomo.py`` left behind (it prints where, one
``/tmp/memoryhub-locomo-*`` per configuration; set that configuration's variables here too):
its LoCoMo clients are searched again, in process, with each weighting (no re-ingest), and
the figures computed as ``locomo_eval.py`` computes them. ``memory_eval`` runs in the same
database, rolled back. A variant is overrides of
``memories.services.retrieval.DEFAULT_WEIGHTS``; its UPPER CASE keys are memoryhub settings
instead (``{"TEXT_SCALE": "query", "text": 0.3}``), set for that variant alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARK = ROOT.parent / "shared" / "benchmarks" / "locomo"

VARIANTS: dict[str, dict] = {
    "default": {},
    "text 0.15": {"text": 0.15},
    "text 0.35": {"text": 0.35},
    "recency 0.05": {"recency": 0.05},
    "recency 0.2": {"recency": 0.2},
    "speaker 0": {"speaker": 0.0},
    "scale query": {"TEXT_SCALE": "query"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--weights", help="JSON: name → overrides (default: a small sweep)")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARK)
    parser.add_argument("--eval-only", action="store_true", help="memory_eval alone (quick)")
    args = parser.parse_args()
    os.environ["MEMORYHUB_DATA_DIR"] = str(args.data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    os.environ.setdefault("MEMORYHUB_LOG_LEVEL", "ERROR")
    sys.path[:0] = [str(ROOT), str(args.benchmark_dir)]
    import django

    django.setup()
    from locomo_eval import questions_of, turns_of, words

    from memories.evaluation import runner
    from memories.models import Client
    from memories.services.retrieval import memories_search, ranking_weights

    variants = json.loads(args.weights) if args.weights else VARIANTS
    weightings = {
        name: {**ranking_weights(), **{k: v for k, v in over.items() if not k.isupper()}}
        for name, over in variants.items()
    }
    samples = json.loads((args.benchmark_dir / "locomo_dev.json").read_text())
    clients = {c.external_ref.rsplit("-", 1)[0]: c for c in Client.objects.all()}
    ks = (5, 10, 20)
    print(f"{'weighting':<16} r@5   r@10  r@20  tr@10 chars  | eval r@1 r@3 r@10 stale@3 stale@10")
    for name, weights in weightings.items():
        overrides = {k: v for k, v in variants[name].items() if k.isupper()}
        saved = {k: os.environ.get(f"MEMORYHUB_{k}") for k in overrides}
        os.environ.update({f"MEMORYHUB_{k}": str(v) for k, v in overrides.items()})
        recall: dict[int, list[float]] = {k: [] for k in ks}
        text_recall, chars = [], []
        for sample in [] if args.eval_only else samples:
            client = clients.get(f"locomo-{sample['sample_id']}")
            if client is None:
                continue
            turns = turns_of(sample)
            text_of = {t["id"]: words(t["text"]) for t in turns}
            for qa in questions_of(sample, set(text_of)):
                hits = memories_search(
                    client=client,
                    query=qa["q"],
                    k=20,
                    weights=weights,
                    record_access=False,
                    with_evidence=True,
                )
                for k in ks:
                    cited = {e["external_id"] for h in hits[:k] for e in h.evidence}
                    recall[k].append(len(qa["ev"] & cited) / len(qa["ev"]))
                seen = words(" ".join(h.memory.content for h in hits[:10]))
                covered = [e for e in qa["ev"] if len(text_of[e] & seen) >= 0.5 * len(text_of[e])]
                text_recall.append(len(covered) / len(qa["ev"]))
                chars.append(sum(len(h.memory.content) for h in hits[:10]))
        scores = {}
        with open(os.devnull, "w") as quiet:
            for k in (1, 3, 10):
                evaluated = runner.evaluate(
                    dataset=runner.load(), k=k, weightings={name: weights}, progress=quiet
                )
                scores[k] = evaluated[name]
        found = " ".join(f"{scores[k]['recall@k']:.3f}" for k in (1, 3, 10))
        stale = " ".join(f"{scores[k]['stale_rate']:.3f}" for k in (3, 10))
        locomo = (
            " ".join(f"{statistics.mean(recall[k]):.3f}" for k in ks)
            + f" {statistics.mean(text_recall):.3f} {int(statistics.median(chars)):5d}"
            if text_recall
            else " " * 29
        )
        print(f"{name:<16} {locomo}  | {found} {stale}", flush=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(f"MEMORYHUB_{k}", None)
            else:
                os.environ[f"MEMORYHUB_{k}"] = v


if __name__ == "__main__":
    main()
