"""The end every benchmark shares: one table with the same columns, whatever it measured.

    | benchmark | tree | config | metric | value | baseline |

``tree`` is the checkout measured, by its commit (``+`` when its files differ from it);
``config`` the configuration's label (its environment, or the mode compared); ``baseline``
the same metric measured in the same run for what the benchmark compares against (the
first configuration, the raw-message retrievers, the plain rows, the plaintext tenant…),
empty where there is none. What a benchmark prints before the table stays its own: the
table is what runs are compared by. ``MEMORYHUB_BENCH_REPORT=FILE`` also appends the rows to
FILE as JSON lines (what ``bench/run.py --report FILE`` sets).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("benchmark", "tree", "config", "metric", "value", "baseline")


@dataclass(frozen=True)
class Row:
    config: str
    metric: str
    value: object
    baseline: object = None
    tree: Path = ROOT


@cache
def tree_id(tree: Path) -> str:
    """The tree's commit (short), with ``+`` when its tracked files differ from it."""
    try:
        commit = subprocess.run(  # noqa: S603 - git, on a checkout the caller named
            ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],  # noqa: S607
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(  # noqa: S603
            ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],  # noqa: S607
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return tree.name
    return commit + ("+" if changed else "")


def flatten(figures: Mapping, prefix: str = "") -> dict[str, object]:
    """Nested figures as ``a.b.c`` metrics; only numbers are metrics."""
    out: dict[str, object] = {}
    for key, value in figures.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{prefix}{key}."))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out[f"{prefix}{key}"] = value
    return out


def rows_beside(
    figures: Mapping[str, Mapping],
    *,
    trees: Mapping[str, Path] | None = None,
    baseline: Mapping | None = None,
    compare_first: bool = True,
) -> list[Row]:
    """One row per configuration and metric. The baseline of a metric is ``baseline``'s
    when given, else the first configuration's (for the others; the first has none), or
    none at all with ``compare_first`` off."""
    flat = {label: flatten(values) for label, values in figures.items()}
    base = flatten(baseline) if baseline is not None else None
    first = None
    if base is None and compare_first and len(flat) > 1:
        first = next(iter(flat.values()))
    rows = []
    for index, (label, values) in enumerate(flat.items()):
        against = base if base is not None else (first if index else None)
        for metric, value in values.items():
            rows.append(
                Row(
                    config=label,
                    metric=metric,
                    value=value,
                    baseline=None if against is None else against.get(metric),
                    tree=(trees or {}).get(label, ROOT),
                )
            )
    return rows


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:.1f}"
    return str(value).replace("|", "\\|")


def table(benchmark: str, rows: Iterable[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = (benchmark, tree_id(row.tree), row.config, row.metric, row.value, row.baseline)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def report(benchmark: str, rows: Iterable[Row]) -> None:
    """Print the table (after everything else the benchmark printed), and append the rows
    to ``MEMORYHUB_BENCH_REPORT`` when it is set. ``benchmark`` may say more in brackets
    ("search (100000 memories)"): the heading keeps it, the column the name alone."""
    rows = list(rows)
    heading, benchmark = benchmark, benchmark.split(" (", 1)[0]
    print(f"\n{heading}: results\n\n{table(benchmark, rows)}", flush=True)
    target = os.environ.get("MEMORYHUB_BENCH_REPORT")
    if target:
        with Path(target).open("a", encoding="utf-8") as out:
            for row in rows:
                cells = (benchmark, tree_id(row.tree), row.config, row.metric, row.value)
                record = dict(zip(COLUMNS, (*cells, row.baseline), strict=True))
                out.write(json.dumps(record, default=str) + "\n")
