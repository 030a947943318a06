"""Recall on conversations nobody here wrote: LoCoMo through the API, against a server of
its own per configuration, beside the raw-turn baselines, in one run.

    python bench/locomo.py [--tree DIR ...] [--config LABEL=VAR=VALUE[,VAR=VALUE] ...]
                           [--conversations N] [--baselines] [--json OUT]

e.g. ``--config minilm=MEMORYHUB_EMBEDDING_PROVIDERS=local-minilm --config
e5=MEMORYHUB_EMBEDDING_PROVIDERS=local``. Every configuration (each ``--config`` on
each ``--tree``; default: this checkout with the defaults) gets a fresh embedded database,
``manage.py serve --no-demo`` with those variables and throttling off, and a SUPERVISOR
key (see bench/_server.py), then ``locomo_eval.py`` (see its docstring for the figures:
recall@5/10/20, text recall, per category, the ingest rate through the batch endpoint),
nonsense queries, duplicates in the top 10 and what was stored. The figures are printed
side by side, with each ingest rate's ratio to the first configuration's. Each server's
data folder stays (``/tmp/memoryhub-locomo-*``, printed) for bench/ranking_weights.py.

``--baselines`` also runs ``locomo_baselines.py`` (BM25, dense with the shipped MiniLM and
RRF over the raw turns; it needs ``pip install rank-bm25``) on the same conversations.

The data set and both scripts live outside the repository (``../shared/benchmarks/locomo/``,
or ``--benchmark-dir``): its licence allows evaluation, not redistribution. A full run posts
5,094 turns and asks 1,304 questions per configuration (a few minutes each).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
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
    command = [sys.executable, str(args.benchmark_dir / "locomo_eval.py"), server.url, server.key]
    if args.conversations:
        command += ["--conversations", str(args.conversations)]
    figures = run_eval(command)
    refs = client_refs(server)
    figures["nonsense"] = nonsense(server, refs)
    figures["stored"] = stored(server)
    sys.path.insert(0, str(args.benchmark_dir))
    from locomo_eval import questions_of, turns_of

    asked = []
    for sample in _samples(args):
        ref = next((r for r in refs if r.startswith(f"locomo-{sample['sample_id']}-")), None)
        if ref:
            known = {t["id"] for t in turns_of(sample)}
            asked.append((ref, [q["q"] for q in questions_of(sample, known)]))
    figures["duplicate_rate@10"] = duplicate_rate(server, asked)
    return figures


def _samples(args: argparse.Namespace) -> list[dict]:
    samples = json.loads((args.benchmark_dir / "locomo_dev.json").read_text())
    return samples[: args.conversations] if args.conversations else samples


def baselines(args: argparse.Namespace) -> dict[str, dict]:
    """The raw-turn baselines on the conversations the configurations saw."""
    command = baseline_command(args.benchmark_dir / "locomo_baselines.py")
    with tempfile.TemporaryDirectory(prefix="memoryhub-locomo-") as folder:
        if args.conversations:
            # The script reads every conversation of its --data: a slice of the data set
            # for this run only, outside the repository.
            data = Path(folder) / "locomo_slice.json"
            data.write_text(json.dumps(_samples(args)))
            command += ["--data", str(data)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout  # noqa: S603
    print(output)
    columns: dict[str, dict] = {}
    for line in output.splitlines():
        name, dicts = printed_dicts(line)
        if not dicts:
            continue
        text, _, retriever = name.rpartition(" ")
        prefix = "text_" if text == "text" else ""
        columns.setdefault(f"raw {retriever}", {}).update(
            {prefix + key: value for key, value in dicts[0].items()}
        )
    return columns


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--conversations", type=int, default=0, help="only the first N")
    parser.add_argument("--baselines", action="store_true", help="also the raw-turn baselines")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARKS / "locomo")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if not (args.benchmark_dir / "locomo_eval.py").exists():
        raise SystemExit(f"no locomo_eval.py in {args.benchmark_dir} (see --benchmark-dir)")
    compare(
        args,
        tenant="locomo",
        measure=lambda server: measure(server, args),
        baselines=(lambda: baselines(args)) if args.baselines else None,
    )


if __name__ == "__main__":
    main()
