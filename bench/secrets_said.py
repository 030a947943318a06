"""The secrets detector on the team's labelled sentences (memories/evaluation/data/
secrets.json: en/it/es, each giving a secret or only looking like it does), both sides,
at the branch point and now, in one run:

- **withheld**: of the sentences that give secrets, the share whose every secret is
  withheld with nothing of its value left;
- **kept**: of the look-alikes, the share left exactly as said.

    .venv/bin/python bench/secrets_said.py [--baseline REV] [--show]

The detector at ``--baseline`` (default db1890a, the branch point of issue 54) is taken
from git into a temporary folder and run in a process of its own, on the same rows; it
reads one event at a time (a row's ``before``, the question it answers, is given only to
a detector that takes it). ``--show`` lists the rows the detector gets wrong now, and
those it got wrong at the baseline and gets right now are counted. In process; nothing
is stored.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings_test")

from _report import Row, report  # noqa: E402
from _tree import run_in  # noqa: E402

from memories.evaluation import secrets as evaluation  # noqa: E402

# Run inside the tree being measured: the rows on stdin, the spans each withholds on
# stdout, and the time it took.
_RUNNER = """
import inspect, json, sys, time
import django
django.setup()
from memories.services.secrets import secrets_in
rows = json.load(sys.stdin)
asks = "asked" in inspect.signature(secrets_in).parameters
started = time.perf_counter()
found = [
    [(s.start, s.end) for s in (
        secrets_in(r["text"], asked=r.get("before", "")) if asks else secrets_in(r["text"])
    )]
    for r in rows
]
json.dump({"found": found, "seconds": time.perf_counter() - started}, sys.stdout)
"""


def detected(tree: Path, rows: list[dict]) -> tuple[list[list[tuple[int, int]]], float]:
    answer = run_in(tree, _RUNNER, rows)
    return [[tuple(span) for span in spans] for spans in answer["found"]], answer["seconds"]


def checked_out(revision: str, into: Path) -> Path:
    """The code of ``revision`` (what the detector imports), from git, in ``into``."""
    archive = subprocess.run(  # noqa: S603
        ["git", "archive", revision, "memories", "memoryhub"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _share(n: int, of: int) -> str:
    return f"{n}/{of} ({n / of:.1%})" if of else "–"


def _line(label: str, scores: dict) -> str:
    withheld = _share(scores["withheld"], scores["secrets"])
    kept = _share(scores["kept"], scores["look_alikes"])
    return f"  {label:<22} withheld {withheld:<18} kept {kept}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--baseline", default="db1890a", help="git revision to compare with")
    parser.add_argument("--show", action="store_true", help="list the rows wrong now")
    args = parser.parse_args()
    rows = evaluation.load()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        trees = {
            f"branch point {args.baseline}": checked_out(args.baseline, Path(folder)),
            "now": ROOT,
        }
        for label, tree in trees.items():
            found, seconds = detected(tree, rows)
            results[label] = (evaluation.evaluate(rows, found), seconds)
    print(f"{len(rows)} sentences, {sum(bool(r['secrets']) for r in rows)} giving secrets")
    for label, (result, seconds) in results.items():
        print(f"{label}: {seconds / len(rows) * 1000:.2f} ms per sentence")
        print(_line("all", result["overall"]))
        for group in ("by_language", "by_set", "by_events"):
            for name, scores in result[group].items():
                print(_line(name, scores))
    (before, _), (now, _) = results.values()
    mended = sum(
        not b["right"] and n["right"] for b, n in zip(before["rows"], now["rows"], strict=True)
    )
    broken = sum(
        b["right"] and not n["right"] for b, n in zip(before["rows"], now["rows"], strict=True)
    )
    print(f"wrong at the branch point and right now: {mended}; right then, wrong now: {broken}")
    (_, seconds_then), (_, seconds_now) = results.values()
    then, here = before["overall"], now["overall"]
    table = [
        Row(
            "now",
            f"{part} of {whole}",
            f"{here[part]}/{here[whole]}",
            f"{then[part]}/{then[whole]}",
        )
        for part, whole in (("withheld", "secrets"), ("kept", "look_alikes"))
    ]
    now_ms, then_ms = (round(s / len(rows) * 1000, 3) for s in (seconds_now, seconds_then))
    table.append(Row("now", "ms per sentence", now_ms, then_ms))
    report(f"secrets_said (baseline: {args.baseline})", table)
    if args.show:
        for row in now["rows"]:
            if not row["right"]:
                side = "missed" if row["secrets"] else "withheld"
                asked = row.get("before", "")
                print(f"{side} [{row['lang']}] {asked!r} {row['text']!r} {row['found']}")


if __name__ == "__main__":
    main()
