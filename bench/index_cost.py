"""What memories and their indexes cost on disk, per memory, on a database a benchmark left.

    python bench/index_cost.py DATA_DIR [DATA_DIR ...]

DATA_DIR is an embedded database (``bench/locomo.py`` and ``bench/beam.py`` leave one).
For the memory table, the memories' and the messages' vectors and the word counts beside
them, it prints each one's heap, TOAST and every index (pg_relation_size, so the main fork
only), with bytes per row; and how the memories spread over tenants and clients, and the
HNSW settings the server runs with. Nothing is written. The embedded server stops when the
script exits.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = (
    "memories_memory",
    "memories_memoryembedding",
    "memories_eventembedding",
    "memories_lexemecount",
)

RELATIONS_SQL = """
SELECT c.relname, 'heap', pg_relation_size(c.oid), NULL
FROM pg_class c WHERE c.relname = %(table)s
UNION ALL
SELECT c.relname, 'toast', coalesce(pg_relation_size(c.reltoastrelid), 0)
       + coalesce((SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i
                   WHERE i.indrelid = c.reltoastrelid), 0), NULL
FROM pg_class c WHERE c.relname = %(table)s
UNION ALL
SELECT ic.relname, am.amname, pg_relation_size(ic.oid),
       substring(pg_get_indexdef(i.indexrelid) FROM 'USING \\w+ (.*)$')
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
WHERE i.indrelid = %(table)s::regclass
"""


def report(data_dir: Path) -> None:
    """One data folder, in a process of its own: Django settles on one database per process."""
    env = dict(os.environ, MEMORYHUB_DATA_DIR=str(data_dir.resolve()))
    env.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    env.setdefault("MEMORYHUB_LOG_LEVEL", "ERROR")
    command = [sys.executable, __file__, "--one", str(data_dir)]
    subprocess.run(command, env=env, check=True)  # noqa: S603


def _one(data_dir: Path) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    from memories.models import LIVE_STATUSES

    with connection.cursor() as cursor:

        def one(statement: str, params=None):
            cursor.execute(statement, params)
            return cursor.fetchone()

        version = one(
            "SELECT current_setting('server_version'), extversion FROM pg_extension "
            "WHERE extname = 'vector'"
        )
        print(f"## {data_dir}\n")
        print(f"PostgreSQL {version[0]}, pgvector {version[1]}; ", end="")
        one("SELECT '[1]'::vector")  # loads pgvector, whose settings exist only then
        settings = [
            f"{name} = {one('SELECT current_setting(%s)', [name])[0]}"
            for name in ("hnsw.ef_search", "hnsw.iterative_scan", "hnsw.max_scan_tuples")
        ]
        print(", ".join(settings) + "\n")

        memories, live, tenants, clients = one(
            "SELECT count(*), count(*) FILTER (WHERE status = ANY(%s)), "
            "count(DISTINCT tenant_id), count(DISTINCT client_id) FROM memories_memory",
            [list(LIVE_STATUSES)],
        )
        cursor.execute("SELECT count(*) FROM memories_memory GROUP BY client_id")
        per_client = sorted(n for (n,) in cursor.fetchall())
        cursor.execute(
            "SELECT s.provider || '/' || s.model, s.dimension, count(e.id) "
            "FROM memories_embeddingspace s JOIN memories_memoryembedding e ON e.space_id = s.id "
            "GROUP BY 1, 2 ORDER BY 1"
        )
        spaces = cursor.fetchall()
        rows = {
            "memories_memory": memories,
            "memories_memoryembedding": sum(n for _, _, n in spaces),
            "memories_eventembedding": one("SELECT count(*) FROM memories_eventembedding")[0],
            "memories_lexemecount": one("SELECT count(*) FROM memories_lexemecount")[0],
        }
        events = one("SELECT count(*) FROM memories_event")[0]
        said = [
            f"{events:,} events; {memories:,} memories ({live:,} live) of {tenants} tenant(s) "
            f"and {clients} clients",
            f"memories per client: median {statistics.median(per_client or [0]):,.0f}, "
            f"largest {max(per_client or [0]):,}",
            *(f"{n:,} vectors of {space} ({dim} dimensions)" for space, dim, n in spaces),
            f"{rows['memories_eventembedding']:,} message vectors",
            f"{rows['memories_lexemecount']:,} word counts",
        ]
        print("; ".join(said) + "\n")

        print("| relation | kind | bytes | bytes per memory | bytes per row |")
        print("|---|---|---:|---:|---:|")
        total = 0
        for table in TABLES:
            cursor.execute(RELATIONS_SQL, {"table": table})
            for name, kind, size, definition in cursor.fetchall():
                label = f"{name} {definition}" if definition else name
                total += size
                per_row = size / rows[table] if rows[table] else 0
                print(
                    f"| {label} | {kind} | {size:,} | {size / (memories or 1):,.0f} "
                    f"| {per_row:,.0f} |"
                )
        print(f"| all of the above | | {total:,} | {total / (memories or 1):,.0f} | |\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dirs", type=Path, nargs="+")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _one(args.data_dirs[0])
        return
    for data_dir in args.data_dirs:
        if not (data_dir / "postgres").is_dir():
            parser.error(f"{data_dir} holds no embedded database (no postgres/ folder)")
        report(data_dir)


if __name__ == "__main__":
    main()
