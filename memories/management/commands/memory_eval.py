import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memories.evaluation import contradictions
from memories.evaluation.runner import DATASET, evaluate, load
from memories.services.retrieval import SEED_000_WEIGHTS, SEED_004_WEIGHTS, ranking_weights

METRICS = ["recall@k", "precision@k", "duplicate_rate", "stale_rate", "conflict_rate"]


class Command(BaseCommand):
    help = (
        "Evaluate retrieval on the shipped multi-session dataset (en/it/es): seed-004 metrics "
        "for memoryhub beside BM25 and dense-only baselines over the raw events. Leaves "
        "nothing in the database."
    )

    def add_arguments(self, parser):
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--dataset", type=Path, default=DATASET)
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
        parser.add_argument(
            "--compare-weightings",
            action="store_true",
            help="also rank with the two seed weightings (000 §1.3 and 004 §5.2)",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
        parser.add_argument(
            "--contradictions",
            action="store_true",
            help="instead: precision and recall of contradiction detection on the labelled "
            "pairs (memories/evaluation/data/contradictions.json)",
        )

    def handle(self, *args, **opts):
        if opts["k"] < 1:
            raise CommandError("--k must be at least 1")
        if opts["contradictions"]:
            self._contradictions(as_json=opts["json"])
            return
        if not opts["dataset"].exists():
            raise CommandError(f"no dataset at {opts['dataset']}")
        weightings = {"memoryhub": ranking_weights()}
        if opts["compare_weightings"]:
            weightings["memoryhub[seed-000]"] = SEED_000_WEIGHTS
            weightings["memoryhub[seed-004]"] = SEED_004_WEIGHTS
        results = evaluate(
            dataset=load(opts["dataset"]),
            k=opts["k"],
            weightings=weightings,
            progress=None if opts["quiet"] or opts["json"] else sys.stderr,
        )
        if opts["json"]:
            self.stdout.write(json.dumps({"k": opts["k"], "systems": results}, indent=2))
            return
        self.stdout.write(f"k = {opts['k']}, {results['bm25']['questions']} questions")
        header = f"{'system':<22}" + "".join(f"{m:>16}" for m in METRICS)
        self.stdout.write(header)
        for name, summary in results.items():
            self.stdout.write(f"{name:<22}" + "".join(f"{summary[m]:>16.3f}" for m in METRICS))
        self.stdout.write("\nrecall@k by language:")
        for name, summary in results.items():
            by = summary["by_language"]
            self.stdout.write(
                f"{name:<22}" + "".join(f"{lang}: {by[lang]['recall@k']:.3f}  " for lang in by)
            )

    def _contradictions(self, *, as_json: bool) -> None:
        result = contradictions.evaluate(contradictions.load())
        if as_json:
            self.stdout.write(json.dumps(result, indent=2))
            return
        rows = [("all", result["overall"])]
        rows += [(f"set {name}", s) for name, s in result["by_set"].items()]
        rows += [(f"type {name}", s) for name, s in result["by_type"].items()]
        rows += [(f"language {name}", s) for name, s in result["by_language"].items()]
        self.stdout.write(
            f"{'pairs':<22}{'n':>6}{'contradict':>12}{'caught':>8}{'precision':>11}{'recall':>8}"
        )
        for name, s in rows:
            precision = "-" if s["precision"] is None else f"{s['precision']:.3f}"
            recall = "-" if s["recall"] is None else f"{s['recall']:.3f}"
            self.stdout.write(
                f"{name:<22}{s['pairs']:>6}{s['contradictions']:>12}{s['caught']:>8}"
                f"{precision:>11}{recall:>8}"
            )
        missed = [p for p in result["pairs"] if p["contradicts"] != p["caught"]]
        for pair in missed:
            what = "missed" if pair["contradicts"] else "false alarm"
            self.stdout.write(f"  {what}: {pair['old']!r} → {pair['new']!r}")
