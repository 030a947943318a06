"""What the secrets detector withholds in conversations nobody here wrote, and what it costs:
every user message of the BEAM development chats and every LoCoMo turn through
``memories.services.secrets.secrets_in``, in process.

    .venv/bin/python bench/secrets_found.py [--show]

Prints, per benchmark, the messages and how many had something withheld, and the time per
message; ``--show`` lists each value withheld with the words before it, to read for false
positives (the benchmarks' own text: printed here, never stored).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter

from _report import Row, report
from _server import BENCHMARKS
from _setup import setup_django

setup_django()

from memories.services.secrets import secrets_in  # noqa: E402


def messages() -> list[tuple[str, str]]:
    with gzip.open(BENCHMARKS / "beam" / "beam_500k_dev.json.gz", "rt") as f:
        found = [
            ("beam", m["text"]) for chat in json.load(f) for m in chat["messages"]
            if m["role"] == "user"
        ]  # fmt: skip
    with (BENCHMARKS / "locomo" / "locomo_dev.json").open() as f:
        for sample in json.load(f):
            conversation = sample["conversation"]
            for key, turns in conversation.items():
                if key.startswith("session_") and isinstance(turns, list):
                    found += [("locomo", t["text"]) for t in turns]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="list every value withheld")
    args = parser.parse_args()
    texts = messages()
    seen: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    kinds: Counter[tuple[str, str]] = Counter()
    shown = []
    started = time.perf_counter()
    for source, text in texts:
        seen[source] += 1
        found = secrets_in(text)
        if found:
            flagged[source] += 1
        for secret in found:
            kinds[(source, secret.kind)] += 1
            before = text[max(0, secret.start - 40) : secret.start]
            shown.append((source, secret.kind, before, text[secret.start : secret.end]))
    took = time.perf_counter() - started
    for source in sorted(seen):
        print(
            f"{source}: {seen[source]} messages, {flagged[source]} with something withheld "
            f"({flagged[source] / seen[source]:.2%}); "
            + ", ".join(f"{k} {n}" for (s, k), n in sorted(kinds.items()) if s == source)
        )
    mean_chars = sum(len(t) for _, t in texts) / len(texts)
    print(f"{took / len(texts) * 1000:.2f} ms per message (mean {mean_chars:.0f} characters)")
    table = [
        Row(source, "messages with something withheld", flagged[source]) for source in sorted(seen)
    ]
    table += [Row(source, "messages", seen[source]) for source in sorted(seen)]
    table.append(Row("all", "ms per message", round(took / len(texts) * 1000, 3)))
    report("secrets_found", table)
    if args.show:
        for source, kind, before, value in shown:
            print(f"{source} {kind}: …{before!r} → {value[:60]!r}")


if __name__ == "__main__":
    main()
