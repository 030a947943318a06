"""One meaning in three languages: the team's parity set read by each tree's write path,
side by side.

    python bench/parity.py [--tree DIR ...] [--data FILE] [--json OUT] [--misses]

``bench/data/parity.json`` holds statements a client might say, each as a native speaker of
English, Italian and Spanish would say it, with the topic it is about. Each tree (default:
this checkout) reads the 3 × N texts as ingest reads a client's event (``prepare_all``, the
local model's vectors and, where the tree has one, its topic reading), in a process of its
own with no database. For each statement:

- ``parity``: its three versions yield memories of the same kinds and categories, as many;
- ``main_parity``: the memory that carries what it says (the one whose topic is read most
  surely; the longest where there is no topic) is of the same kind and category in the
  three;
- ``right``: besides, the topic the set names is among the topics of each version's
  memories (a tree without topics has none).

The issue's line is ``parity`` ≥ 0.95.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from _report import report, rows_beside
from _tree import run_in

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "parity.json"
LANGUAGES = ("en", "it", "es")

# Run in each tree, with that tree first on the path: its own write path reads the texts.
READER = r"""
import json, sys
from datetime import UTC, datetime
import django
django.setup()
from memories.services.embedding.local_model import get_local_embedder
from memories.services.write.prepare import EventInput, prepare_all
try:
    from memories.services.write.topics import topics_read
except ImportError:
    topics_read = None

class Space:
    model = "multilingual-e5-small"

texts = json.load(sys.stdin)
said = datetime(2026, 3, 2, 10, tzinfo=UTC)
prepared = prepare_all(
    [EventInput(client="parity", content=t, speaker="client") for t in texts], said
)
contents = [c.content for p in prepared for c in p.candidates]
embedder = get_local_embedder("local")
vectors = iter(embedder.embed(contents, input_type="document") if contents else [])
for p in prepared:
    p.vectors = [next(vectors) for _ in p.candidates]
if topics_read is not None:
    topics_read(prepared, Space(), {})
out = [
    [
        {
            "kind": str(c.kind),
            "category": c.category,
            "topic": getattr(c, "topic", ""),
            "probability": getattr(c, "topic_probability", 0.0),
            "content": c.content,
        }
        for c in p.candidates
    ]
    for p in prepared
]
print(json.dumps(out))
"""


def read(tree: Path, texts: list[str]) -> list[list[dict]]:
    # Nothing here touches a database: a URL never connected to keeps the embedded
    # PostgreSQL from starting.
    return run_in(
        tree,
        READER,
        texts,
        MEMORYHUB_DEBUG="1",
        DATABASE_URL="postgres://parity@localhost/unused",
    )


def _main(memories: list[dict]) -> tuple[str, str] | None:
    if not memories:
        return None
    main = max(memories, key=lambda m: (m["probability"], len(m["content"])))
    return (main["kind"], main["category"])


def evaluate(statements: list[dict], read_texts) -> dict:
    texts = [s[language] for s in statements for language in LANGUAGES]
    found = iter(read_texts(texts))
    rows = []
    for statement in statements:
        versions = {language: next(found) for language in LANGUAGES}
        kinds = {
            language: sorted((m["kind"], m["category"]) for m in memories)
            for language, memories in versions.items()
        }
        main = {language: _main(memories) for language, memories in versions.items()}
        at_parity = len({tuple(k) for k in kinds.values()}) == 1 and bool(kinds["en"])
        main_parity = len(set(main.values())) == 1 and None not in main.values()
        right = main_parity and all(
            statement["topic"] in {m["topic"] for m in memories} for memories in versions.values()
        )
        rows.append(
            {"id": statement["id"], "kinds": kinds, "main": main}
            | {"parity": at_parity, "main_parity": main_parity, "right": right}
        )
    total = len(rows)
    return {
        "statements": total,
        "parity": round(sum(r["parity"] for r in rows) / total, 3),
        "main_parity": round(sum(r["main_parity"] for r in rows) / total, 3),
        "right": round(sum(r["right"] for r in rows) / total, 3),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, help="a memoryhub checkout")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, help="write every figure and row here")
    parser.add_argument("--misses", action="store_true", help="print the statements off parity")
    args = parser.parse_args()
    statements = json.loads(args.data.read_text(encoding="utf-8"))["statements"]
    trees = [tree.resolve() for tree in args.tree or [ROOT]]
    results = {}
    for tree in trees:
        results[tree.name] = evaluate(statements, lambda texts, tree=tree: read(tree, texts))
    width = max(len(name) for name in results) + 2
    print(f"{'':14}" + "".join(f"{name:>{width}}" for name in results))
    for figure in ("statements", "parity", "main_parity", "right"):
        print(f"{figure:14}" + "".join(f"{r[figure]:>{width}}" for r in results.values()))
    if args.misses:
        by_id = {s["id"]: s for s in statements}
        for name, result in results.items():
            for row in result["rows"]:
                if not row["parity"]:
                    print(f"[{name}] {row['id']} {by_id[row['id']]['en']!r}: {row['kinds']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    figures = {
        name: {f: r[f] for f in ("statements", "parity", "main_parity", "right")}
        for name, r in results.items()
    }
    report("parity", rows_beside(figures, trees={tree.name: tree for tree in trees}))


if __name__ == "__main__":
    main()
