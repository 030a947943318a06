"""The benchmarks that are rerun, behind one entry point.

    python bench/run.py                      # what exists, one line each
    python bench/run.py NAME [OPTIONS ...]   # run one: python bench/NAME.py OPTIONS ...
    python bench/run.py --report FILE NAME [OPTIONS ...]

Each benchmark keeps its own options (``python bench/run.py NAME --help``) and ends with
the same table (bench/_report.py): benchmark, tree, config, metric, value, baseline.
``--report FILE`` also appends its rows to FILE as JSON lines, so runs can be compared.
What each one measured, and the command that produced each figure: docs/evaluation.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: what it measures. The name is the script's: bench/<name>.py.
BENCHMARKS = {
    "advisor": "the right, current answer on the advisor development set (hit@1/5, updates, "
    "nonsense, small talk, secrets, plans), per tree and configuration",
    "locomo": "recall on LoCoMo's conversations beside the raw-turn baselines, per tree and "
    "configuration",
    "beam": "recall on BEAM's long user-assistant chats beside the raw-message baselines, per "
    "tree and configuration",
    "parity": "one meaning in three languages: the team's parity set through each tree's write "
    "path",
    "crosslingual": "a question in one language finding a statement in another, per embedding "
    "configuration",
    "secrets_said": "the secrets detector on the team's labelled sentences, now and at a "
    "baseline revision",
    "secrets_found": "what the secrets detector withholds in BEAM's and LoCoMo's messages, and "
    "its time per message",
    "answer_size": "what an answer costs an agent: bytes and tokens per result of search and "
    "context, by default and with explain, over the API and MCP",
    "ingest": "generated events through the batch endpoint and single posts, beside plain rows",
    "ingest_real": "LoCoMo's or BEAM's messages through the batch endpoint, per tree and "
    "configuration",
    "search": "search latency beside a bare HNSW top-10 and a full scan, at N memories",
    "load": "the production and the development server under concurrent agents (mixed, read, "
    "write)",
    "local_embedder": "the offline embedders side by side: load time, turns per second, one text",
    "consolidation": "fusion and promotion scoring at 10k-100k memories, beside a sequential scan",
    "encryption": "an encrypted tenant beside a plaintext one: ingest, search, loading",
    "ranking_weights": "ranking weights on a database LoCoMo or BEAM left, with memory_eval, "
    "in one run",
    "index_cost": "what memories and their indexes cost on disk, on a database a benchmark left",
}


def listing() -> str:
    width = max(map(len, BENCHMARKS))
    lines = [f"  {name:<{width}}  {text}" for name, text in BENCHMARKS.items()]
    return "benchmarks (python bench/run.py NAME [OPTIONS]):\n" + "\n".join(lines)


def main(argv: list[str]) -> int:
    environment = dict(os.environ)
    if argv[:1] == ["--report"]:
        if len(argv) < 2:
            print("--report needs a file", file=sys.stderr)
            return 2
        environment["MEMORYHUB_BENCH_REPORT"] = str(Path(argv[1]).resolve())
        argv = argv[2:]
    if not argv or argv[0] in {"-h", "--help", "list"}:
        print(__doc__.split("\n\n")[0] + "\n\n" + listing())
        return 0
    name, options = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"no benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    command = [sys.executable, str(HERE / f"{name}.py"), *options]
    return subprocess.run(command, env=environment, check=False).returncode  # noqa: S603


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
