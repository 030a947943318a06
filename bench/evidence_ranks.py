"""Where does each piece of a benchmark's evidence rank? Offline, on a database a benchmark
left.

    python bench/evidence_ranks.py DATA_DIR [--depth 100]

DATA_DIR is an embedded database that ``bench/locomo.py`` or ``bench/beam.py`` left behind
(``manage.py run_job all`` may have run on it since). Each question is searched as it is
today, ``--depth`` results deep, and each piece of the user's evidence is counted by the
rank of the first result that cites it: in the top 10, 11–20, 21–50, deeper, or not at all
though a live memory rests on it, or with no live memory at all (nothing stored says it).
Also: how many distinct messages the top 10 cite. Nothing is written.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

import ranking_weights as benchmarks

BUCKETS = ((10, "top 10"), (20, "11-20"), (50, "21-50"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    benchmarks.open_database(args.data_dir)

    from memories.models import LIVE_STATUSES
    from memories.models.links import Evidence
    from memories.services.retrieval import memories_search

    questions = benchmarks.questions_here()
    stored = {
        client.pk: set(
            Evidence.objects.filter(
                memory__client=client, memory__status__in=LIVE_STATUSES
            ).values_list("event__external_id", flat=True)
        )
        for client in {q.client for q in questions}
    }
    counts: Counter[str] = Counter()
    distinct = []
    for qa in questions:
        hits = memories_search(
            client=qa.client, query=qa.q, k=args.depth, record_access=False, with_evidence=True
        )
        rank: dict[str, int] = {}
        for position, hit in enumerate(hits):
            for e in hit.evidence:
                rank.setdefault(e["external_id"], position)
        distinct.append(len({e["external_id"] for hit in hits[:10] for e in hit.evidence}))
        for e in qa.ev:
            at = rank.get(e)
            if at is None:
                where = "live, not found" if e in stored[qa.client.pk] else "no live memory"
            else:
                where = next((name for bound, name in BUCKETS if at < bound), f"51-{args.depth}")
            counts[where] += 1
    print(f"{len(questions)} questions, {sum(counts.values())} pieces of user evidence")
    for name in (*(n for _, n in BUCKETS), f"51-{args.depth}", "live, not found", "no live memory"):
        print(f"  {name:<16} {counts[name]:5d}")
    print(f"distinct messages the top 10 cite: mean {statistics.mean(distinct):.1f}")


if __name__ == "__main__":
    main()
