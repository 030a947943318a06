"""What bench/locomo.py and bench/beam.py share: running a benchmark's eval script against a
server of its own per configuration, the checks that the eval does not make (nonsense
queries, duplicates in the top 10, what the write path stored), and the side-by-side table.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

from _report import report, rows_beside
from _server import ROOT, Configuration, Server, configurations, serve

MODEL = ROOT / "memories" / "local_model"

# Queries that nothing in a conversation answers (words drawn from unrelated fields): the
# answer should be empty, not the client's nearest memories.
NONSENSE = [
    "xylophone quantum",
    "purple submarine tax",
    "quantum chromodynamics lattice gauge",
    "tungsten carbide drill bits",
    "byzantine iconoclasm decree",
    "sourdough hydration ratio",
    "kubernetes ingress controller",
    "mitochondrial haplogroup",
    "cobalt blue glaze kiln",
    "medieval falconry hood",
    "zeppelin hangar rivets",
    "photosynthesis rubisco enzyme",
    "offshore oil rig ballast",
    "baroque harpsichord tuning",
    "titanium alloy fatigue",
    "glacier moraine sediment",
    "ottoman tax farming",
    "cryptocurrency mining difficulty",
    "tectonic subduction zone",
    "bebop saxophone scales",
    "llama wool spinning wheel",
    "fermat last theorem proof",
    "submarine sonar ping",
    "volcanic obsidian blade",
    "antique barometer repair",
    "semiconductor lithography mask",
    "polar bear migration",
    "nuclear reactor control rods",
    "hieroglyph cartouche reading",
    "cricket bowling yorker",
]
_CLIENT_REFS = (
    "from memories.models import Client; "
    "print('\\n'.join(Client.objects.values_list('external_ref', flat=True)))"
)
# What the write path kept, in SQL that every version of the schema answers: events, the
# events that yielded no memory, memories by kind.
_STORED = (
    "from django.db import connection; import json; c = connection.cursor(); "
    'c.execute("SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM '
    'memories_evidence v WHERE v.event_id = e.id)) FROM memories_event e"); '
    "events, bare = c.fetchone(); "
    "c.execute('SELECT kind, count(*) FROM memories_memory GROUP BY kind'); "
    "print(json.dumps({'events': events, 'events_yielding_nothing': bare, "
    "'memories': dict(c.fetchall())}))"
)


def search(server: Server, ref: str, query: str, k: int) -> list[dict]:
    request = urllib.request.Request(  # noqa: S310
        server.url + "api/v1/search/",
        data=json.dumps({"client": ref, "query": query, "k": k}).encode(),
        headers={"Authorization": f"Bearer {server.key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        return json.loads(answer.read())["results"]


def client_refs(server: Server) -> list[str]:
    return server.shell(_CLIENT_REFS).split()


def stored(server: Server) -> dict:
    return json.loads(server.shell(_STORED))


def nonsense(server: Server, refs: list[str]) -> dict:
    """How many nonsense queries answer nothing, and how many results the others give."""
    empty, results = 0, []
    for ref in refs:
        for query in NONSENSE:
            found = len(search(server, ref, query, 10))
            empty += found == 0
            results.append(found)
    asked = len(results)
    return {
        "queries": asked,
        "answered_nothing": round(empty / asked, 3) if asked else None,
        "results_mean": round(sum(results) / asked, 2) if asked else None,
    }


def duplicate_rate(server: Server, asked: list[tuple[str, list[str]]]) -> float | None:
    """Over (client, questions) pairs, the mean share of a question's top 10 that repeat an
    earlier result (nine tenths of the same words)."""
    rates = []
    for ref, questions in asked:
        for question in questions:
            results = search(server, ref, question, 10)
            seen: list[frozenset] = []
            repeats = 0
            for result in results:
                words = frozenset(re.findall(r"\w+", result["content"].lower()))
                if any(len(words & w) >= 0.9 * max(len(words | w), 1) for w in seen):
                    repeats += 1
                seen.append(words)
            rates.append(repeats / len(results) if results else 0.0)
    return round(sum(rates) / len(rates), 4) if rates else None


def run_eval(command: list[str]) -> dict:
    """The eval script's figures (its ``--json``); what it prints goes through."""
    with tempfile.TemporaryDirectory(prefix="memoryhub-eval-") as folder:
        out = Path(folder) / "figures.json"
        subprocess.run([*command, "--json", str(out)], check=True)  # noqa: S603
        return json.loads(out.read_text())


def baseline_command(script: Path) -> list[str]:
    """The baselines script with the shipped MiniLM for its dense retriever."""
    if importlib.util.find_spec("rank_bm25") is None:
        raise SystemExit("--baselines needs rank-bm25 in this interpreter (pip install rank-bm25)")
    return [
        sys.executable,
        str(script),
        "--onnx",
        str(MODEL / "model.onnx"),
        "--tokenizer",
        str(MODEL / "tokenizer.json"),
    ]


def printed_dicts(line: str) -> tuple[str, list[dict]]:
    """``name {...} {...}`` as a baselines script prints it: the name and the dicts."""
    name, _, rest = line.partition("{")
    return name.strip(), [ast.literal_eval(d) for d in re.findall(r"\{[^{}]*\}", "{" + rest)]


def flatten(figures: dict, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def with_ingest_ratio(figures: dict[str, dict]) -> None:
    """Each configuration's ingest rate over the first's, next to the rate."""
    rates = [f.get("ingest_events_per_s") for f in figures.values()]
    first = rates[0] if rates else None
    for label, values in figures.items():
        rate = values.get("ingest_events_per_s")
        ratio = round(rate / first, 2) if rate and first else None
        items = list(values.items())
        at = next((i + 1 for i, (k, _) in enumerate(items) if k == "ingest_events_per_s"), 0)
        figures[label] = dict([*items[:at], ("ingest_ratio_to_first", ratio), *items[at:]])


def table(columns: dict[str, dict]) -> str:
    """One row per figure, one column per configuration (and baseline)."""
    flat = {label: flatten(values) for label, values in columns.items()}
    rows: list[str] = []
    for values in flat.values():
        rows += [key for key in values if key not in rows]
    width = max((len(r) for r in rows), default=0)
    cells = {label: [_cell(values.get(r)) for r in rows] for label, values in flat.items()}
    widths = {label: max(len(label), *map(len, c)) for label, c in cells.items()}
    lines = [[" " * width, *(label.rjust(widths[label]) for label in cells)]]
    for i, row in enumerate(rows):
        lines.append([row.ljust(width), *(c[i].rjust(widths[label]) for label, c in cells.items())])
    return "\n".join("  ".join(line) for line in lines)


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


def compare(
    args: argparse.Namespace,
    *,
    tenant: str,
    measure: Callable[[Server], dict],
    baselines: Callable[[], dict[str, dict]] | None,
) -> None:
    """The baselines if asked, then every configuration on a fresh server (its data folder
    kept); the figures side by side, and in ``--json``."""
    runs: list[Configuration] = configurations(args)
    # First: they need no server, and a missing rank-bm25 stops the run before the long part.
    raw = baselines() if baselines else {}
    figures: dict[str, dict] = {}
    data: dict[str, str] = {}
    for configuration in runs:
        with serve(configuration, tenant=tenant, keep=True) as server:
            figures[configuration.label] = measure(server)
            data[configuration.label] = str(server.data)
    with_ingest_ratio(figures)
    print()
    print(table({**figures, **raw}))
    # The raw retrievers' fusion is what the configurations are compared with, when it ran.
    fused = next((values for label, values in raw.items() if label.endswith("rrf")), None)
    trees = {c.label: c.tree for c in runs}
    report(
        tenant,
        rows_beside(figures, trees=trees, baseline=fused) + rows_beside(raw, compare_first=False),
    )
    if args.json:
        document = {
            "configurations": {
                c.label: {
                    "tree": str(c.tree),
                    "environment": c.environment,
                    "data_dir": data[c.label],
                    **figures[c.label],
                }
                for c in runs
            },
            "baselines": raw,
        }
        args.json.write_text(json.dumps(document, indent=1))
