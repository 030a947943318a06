"""Cross-lingual retrieval on the team's own set: does a question asked in English, Italian
or Spanish find what a client said in another of them? Once per embedding configuration.

    python bench/crosslingual.py [--providers NAME[,NAME...]] [--k 5] [--json OUT] [--dump OUT]

Without ``--providers``: one run with the chain the environment configures
(``MEMORYHUB_EMBEDDING_PROVIDERS``, default ``local``). With it: one run per name, each in
a subprocess of its own with ``MEMORYHUB_EMBEDDING_PROVIDERS`` set to that name (a chain
is written with ``+``: ``voyage+local``); names are passed through as they are, so any
provider the checkout knows can be compared. One table row per configuration.

Each run is ``memories.evaluation.crosslingual`` (see its docstring for the figures) on
``memories/evaluation/data/crosslingual.json``, ingested through the write path into
throw-away tenants and rolled back, in the benchmark database (``bench/_setup.py``).
``--json OUT`` writes every configuration's report; ``--dump OUT`` every question's
outcome (rank of its statement, the first result), per configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _report import report as report_table
from _report import rows_beside
from _setup import ROOT, setup_django

CONFIGURED = "(configured)"
DIRECTIONS = ("en→it", "en→es", "it→en", "it→es", "es→en", "es→it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--providers",
        help="comma-separated embedding configurations, one run each ('+' joins a chain)",
    )
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the reports to this file")
    parser.add_argument("--dump", type=Path, help="write every question's outcome to this file")
    parser.add_argument("--dataset", type=Path, help="another data set in the same format")
    parser.add_argument("--report", type=Path, help=argparse.SUPPRESS)  # a child's answer
    args = parser.parse_args()
    if args.k < 1:
        parser.error("--k must be at least 1")

    if args.report is not None:  # a child: one run, its report to the file the parent reads
        args.report.write_text(json.dumps(run_here(args.k, args.dataset)))
        return
    if args.providers:
        names = [n.strip() for n in args.providers.split(",") if n.strip()]
        reports = {name: run_in_subprocess(name, args.k, args.dataset) for name in names}
    else:
        reports = {CONFIGURED: run_here(args.k, args.dataset)}

    print_tables(reports, args.k)
    figures = {
        name: {
            part: {
                key: r[part][key] for key in ("hit@1", f"hit@{args.k}", "empty") if key in r[part]
            }
            for part in ("crosslingual", "same_language", "nonsense")
        }
        for name, r in reports.items()
        if "error" not in r
    }
    report_table(f"crosslingual (k = {args.k})", rows_beside(figures))
    if args.json:
        summaries = {
            n: {k: v for k, v in r.items() if k != "questions"} for n, r in reports.items()
        }
        args.json.write_text(json.dumps(summaries, indent=2, ensure_ascii=False))
    if args.dump:
        dumps = {n: r.get("questions", []) for n, r in reports.items()}
        args.dump.write_text(json.dumps(dumps, indent=2, ensure_ascii=False, default=str))
    if any("error" in r for r in reports.values()):
        sys.exit(1)


def run_here(k: int, dataset: Path | None) -> dict:
    setup_django()
    from memories.evaluation import crosslingual

    data = crosslingual.load(dataset or crosslingual.DATASET)
    return crosslingual.evaluate(dataset=data, k=k)


def run_in_subprocess(name: str, k: int, dataset: Path | None) -> dict:
    env = {**os.environ, "MEMORYHUB_EMBEDDING_PROVIDERS": name.replace("+", ",")}
    with tempfile.TemporaryDirectory(prefix="memoryhub-crosslingual-") as folder:
        report = Path(folder) / "report.json"
        command = [sys.executable, __file__, "--k", str(k), "--report", str(report)]
        if dataset is not None:
            command += ["--dataset", str(dataset)]
        print(f"{name}: running", file=sys.stderr, flush=True)
        finished = subprocess.run(command, env=env, cwd=ROOT, check=False)  # noqa: S603
        if finished.returncode != 0 or not report.exists():
            return {"error": f"exit {finished.returncode}"}
        return json.loads(report.read_text())


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _model(report: dict) -> str:
    stored = report.get("embedding", {}).get("stored", [])
    return "+".join(f"{s['model']} ({s['dimension']})" for s in stored) or "-"


def print_tables(reports: dict[str, dict], k: int) -> None:
    first = next((r for r in reports.values() if "error" not in r), None)
    if first is not None:
        counts = first["dataset"]["questions"]
        print(
            f"\nk = {k}; {first['dataset']['clients']} clients; questions: "
            + ", ".join(f"{n} {kind}" for kind, n in counts.items())
        )
    hit_k = f"hit@{k}"
    head = f"{'providers':<18}{'model':<28}"
    print(
        head + f"{'xl hit@1':>9}{'xl ' + hit_k:>9}{'xl empty':>9}"
        f"{'same @1':>9}{'same @' + str(k):>9}{'nonsense':>10}{'mixed':>7}"
    )
    for name, report in reports.items():
        if "error" in report:
            print(f"{name:<18}failed ({report['error']})")
            continue
        cross, same, nonsense = report["crosslingual"], report["same_language"], report["nonsense"]
        print(
            f"{name:<18}{_model(report):<28}"
            f"{_pct(cross['hit@1']):>9}{_pct(cross[hit_k]):>9}{_pct(cross['empty']):>9}"
            f"{_pct(same['hit@1']):>9}{_pct(same[hit_k]):>9}"
            f"{_pct(nonsense['empty']):>10}{_pct(nonsense['mixed_clients']['empty']):>7}"
        )
    print(
        "(percent; xl: cross-lingual questions; nonsense / mixed: share of nonsense questions "
        "answered with nothing, on all clients / on those whose memory mixes languages)"
    )
    print(f"\ncross-lingual hit@1 / {hit_k} by direction (question → statement):")
    print(f"{'providers':<18}" + "".join(f"{d:>13}" for d in DIRECTIONS))
    for name, report in reports.items():
        if "error" in report:
            continue
        by = report["crosslingual"]["by_direction"]
        cells = [
            f"{_pct(by[d]['hit@1'])}/{_pct(by[d][hit_k])}" if d in by else "-" for d in DIRECTIONS
        ]
        print(f"{name:<18}" + "".join(f"{c:>13}" for c in cells))


if __name__ == "__main__":
    main()
