"""The right, current answer on advisor conversations: the advisor development set through
the API, against a server of its own per configuration, in one run.

    python bench/advisor.py [--tree DIR ...] [--config LABEL=VAR=VALUE[,VAR=VALUE] ...]
                            [--data FILE] [--json OUT]

As bench/locomo.py: every configuration (each ``--config`` on each ``--tree``; default: this
checkout with the defaults) gets a fresh embedded database, ``manage.py serve --no-demo``
with those variables and throttling off, and a SUPERVISOR key (bench/_server.py), then
``advisor_eval.py`` (see its docstring: hit@1/5 per question type and language pair, the
current value above the outdated one, questions about nothing answered with nothing, small
talk and secrets that leave nothing, plans coming up and plans past). The figures are
printed side by side.

The data set and its script live outside the repository (``../shared/benchmarks/advisor/``,
or ``--benchmark-dir``): evaluate with them, never copy them. A run posts 628 events and asks
161 questions per configuration (about a minute each).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _recall import compare, run_eval
from _server import BENCHMARKS, Server, add_arguments


def measure(server: Server, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(args.benchmark_dir / "advisor_eval.py"), server.url, server.key]
    if args.data:
        command.append(str(args.data))
    figures = run_eval(command)
    # The per-miss lines are printed by the eval; the table keeps the figures.
    figures.pop("misses", None)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARKS / "advisor")
    parser.add_argument("--data", type=Path, help="another set of the same format")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if not (args.benchmark_dir / "advisor_eval.py").exists():
        raise SystemExit(f"no advisor_eval.py in {args.benchmark_dir} (see --benchmark-dir)")
    compare(args, tenant="advisor", measure=lambda server: measure(server, args), baselines=None)


if __name__ == "__main__":
    main()
