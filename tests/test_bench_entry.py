"""bench/run.py, the one entry point of the benchmarks that are rerun, and the table every
benchmark ends with (bench/_report.py). The benchmarks themselves are not run by the suite:
one small, real run (the parity set's first statements through this tree's write path)
shows the table a benchmark prints and the rows ``--report`` keeps."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
HEADER = "| benchmark | tree | config | metric | value | baseline |"
# Imported by the benchmarks, not run: shared set-up and the generated corpora.
HELPERS = {"run", "corpus", "search_corpus"}


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 - this interpreter and the repository's own script
        [sys.executable, str(BENCH / "run.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        **kwargs,
    )


def _listed(output: str) -> list[str]:
    return [line.split()[0] for line in output.splitlines() if line.startswith("  ")]


def test_the_listing_names_every_benchmark_in_bench_and_nothing_else():
    done = _run()
    assert done.returncode == 0, done.stderr
    scripts = {p.stem for p in BENCH.glob("*.py") if not p.name.startswith("_")} - HELPERS
    assert sorted(_listed(done.stdout)) == sorted(scripts)
    for name in ("advisor", "locomo", "beam", "parity", "ingest_real", "search"):
        assert name in scripts
    # One line each, saying what it measures.
    assert all(len(line.split(maxsplit=1)) == 2 for line in done.stdout.splitlines()[3:])


def test_the_investigations_that_served_once_are_gone():
    for name in ("recall_ceiling", "message_vectors", "embed_batching", "equal_characters"):
        assert not (BENCH / f"{name}.py").exists()
    for name in ("evidence_ranks", "query_reading", "search_phases"):
        assert not (BENCH / f"{name}.py").exists()


def test_an_unknown_benchmark_is_refused_with_the_listing():
    done = _run("recall_ceiling")
    assert done.returncode == 2
    assert "no benchmark 'recall_ceiling'" in done.stderr
    assert "advisor" in _listed(done.stderr)


def test_a_benchmark_keeps_its_own_options():
    done = _run("parity", "--help")
    assert done.returncode == 0, done.stderr
    for option in ("--tree", "--data", "--json", "--misses"):
        assert option in done.stdout


def test_a_run_ends_with_the_common_table_and_reports_its_rows(tmp_path):
    statements = json.loads((BENCH / "data" / "parity.json").read_text(encoding="utf-8"))
    data = tmp_path / "parity.json"
    data.write_text(json.dumps({**statements, "statements": statements["statements"][:2]}))
    rows = tmp_path / "rows.jsonl"
    done = _run("--report", str(rows), "parity", "--data", str(data))
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("parity: results\n\n", 1)[1].strip().splitlines()
    assert table[0] == HEADER
    assert table[1] == "|---|---|---|---|---|---|"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.strip()
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert [c[3] for c in cells] == ["statements", "parity", "main_parity", "right"]
    assert {c[0] for c in cells} == {"parity"}
    assert {c[1].rstrip("+") for c in cells} == {commit}
    assert {c[2] for c in cells} == {ROOT.name}
    assert cells[0][4] == "2"
    recorded = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [r["metric"] for r in recorded] == ["statements", "parity", "main_parity", "right"]
    assert recorded[0] == {
        "benchmark": "parity",
        "tree": cells[0][1],
        "config": ROOT.name,
        "metric": "statements",
        "value": 2,
        "baseline": None,
    }
