"""Recall on long user-assistant chats: BEAM through the API, against a server of its own
per configuration, beside the raw-message baselines, in one run.

    python bench/beam.py [--tree DIR ...] [--config LABEL=VAR=VALUE[,VAR=VALUE] ...]
                         [--chats N] [--baselines] [--json OUT]

As bench/locomo.py: every configuration (each ``--config`` on each ``--tree``; default: this
checkout with the defaults) gets a fresh embedded database, ``manage.py serve --no-demo``
with those variables and throttling off, and a SUPERVISOR key (bench/_server.py), then
``beam_eval.py --chats N`` (see its docstring: recall@5/10/20 of the user's evidence, text
recall, per question type, knowledge updates, the ingest rate through the batch endpoint),
nonsense queries, duplicates in the top 10 and what was stored. The figures are printed side
by side, with each ingest rate's ratio to the first configuration's. Each server's data
folder stays (``/tmp/memoryhub-beam-*``, printed): remove it when done.

``--baselines`` also runs ``beam_baselines.py --chats N`` (BM25, dense with the shipped
MiniLM and RRF over the raw user messages; it needs ``pip install rank-bm25``).

A full run posts 38,058 messages per configuration (about 20 minutes on this machine);
``--chats 1`` is a quick one. The data set and both scripts live outside the repository
(``../shared/benchmarks/beam/``, or ``--benchmark-dir``): evaluate with them, never copy them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

from _recall import (
    baseline_command,
    client_refs,
    compare,
    duplicate_rate,
    nonsense,
    printed_dicts,
    run_eval,
    stored,
)
from _server import BENCHMARKS, Server, add_arguments


def measure(server: Server, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(args.benchmark_dir / "beam_eval.py"), server.url, server.key]
    if args.chats:
        command += ["--chats", str(args.chats)]
    figures = run_eval(command)
    refs = client_refs(server)
    figures["nonsense"] = nonsense(server, refs)
    figures["stored"] = stored(server)
    asked = []
    for chat in _chats(args):
        ref = next((r for r in refs if r.startswith(f"{chat['chat']}-")), None)
        if ref:
            # The questions beam_eval.py asks: those with evidence in the user's messages.
            users = {m["id"] for m in chat["messages"] if m["role"] == "user"}
            asked.append((ref, [q["q"] for q in chat["questions"] if users & set(q["ev"])]))
    figures["duplicate_rate@10"] = duplicate_rate(server, asked)
    return figures


def _chats(args: argparse.Namespace) -> list[dict]:
    with gzip.open(args.benchmark_dir / "beam_500k_dev.json.gz", "rt") as f:
        chats = json.load(f)
    return chats[: args.chats] if args.chats else chats


def baselines(args: argparse.Namespace) -> dict[str, dict]:
    """The raw-message baselines on the chats the configurations saw."""
    command = baseline_command(args.benchmark_dir / "beam_baselines.py")
    if args.chats:
        command += ["--chats", str(args.chats)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout  # noqa: S603
    print(output)
    columns: dict[str, dict] = {}
    for line in output.splitlines():
        name, dicts = printed_dicts(line)
        if len(dicts) == 2:
            recall, by_type = dicts
            columns[f"raw {name}"] = {
                **{f"recall@{k}": value for k, value in recall.items()},
                "recall@10_by_type": by_type,
            }
    return columns


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--chats", type=int, default=0, help="only the first N (0: all 35)")
    parser.add_argument("--baselines", action="store_true", help="also the raw-message baselines")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARKS / "beam")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if not (args.benchmark_dir / "beam_eval.py").exists():
        raise SystemExit(f"no beam_eval.py in {args.benchmark_dir} (see --benchmark-dir)")
    compare(
        args,
        tenant="beam",
        measure=lambda server: measure(server, args),
        baselines=(lambda: baselines(args)) if args.baselines else None,
    )


if __name__ == "__main__":
    main()
