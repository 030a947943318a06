"""How a search reads its question, part by part: each part of the reading off, alone and
all together, on a database a benchmark left.

    python bench/query_reading.py DATA_DIR

DATA_DIR is an embedded database that ``bench/locomo.py`` or ``bench/beam.py`` left behind.
Every question is searched again in process (no re-ingest), with the figures of
``bench/ranking_weights.py``, and each part of the reading switched by replacing its
function for the run:

- framing: what the question says about the conversation is left out (``framing.py``);
- dates out of the words: the days it names weigh through the window alone, not among the
  full-text words (``query_window`` before ``_query_words``);
- early: a question about how things began ranks what was said first higher (the
  ``early`` weight).

Nothing is written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import ranking_weights as benchmarks

PARTS = ("framing", "dates out of the words", "early")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    args = parser.parse_args()
    benchmarks.open_database(args.data_dir)

    from memories.services import retrieval

    unframed, query_window, query_words = (
        retrieval.unframed,
        retrieval.query_window,
        retrieval._query_words,
    )
    read: dict[str, str] = {}

    def window_noting_its_query(topic, now):
        read["topic"] = topic
        return query_window(topic, now)

    def words_with_the_dates(tenant, _undated):
        return query_words(tenant, read["topic"])

    def run(label: str, on: set[str]) -> None:
        retrieval.unframed = unframed if "framing" in on else (lambda query: query)
        retrieval.query_window = window_noting_its_query
        retrieval._query_words = (
            query_words if "dates out of the words" in on else words_with_the_dates
        )
        weights = {**retrieval.ranking_weights(), "early": 0.0}
        if "early" in on:
            weights["early"] = retrieval.DEFAULT_WEIGHTS["early"]
        print(f"{label:<28} {benchmarks._figures(questions, weights)}", flush=True)

    questions = benchmarks.questions_here()
    print(f"{'reading':<28} r@5   r@10  r@20  tr@10 chars (ku: BEAM's updates, new above old)")
    run("none", set())
    for part in PARTS:
        run(f"{part} alone", {part})
    run("all", set(PARTS))


if __name__ == "__main__":
    main()
