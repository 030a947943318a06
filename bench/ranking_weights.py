"""Ranking weights against the benchmarks in one run: LoCoMo or BEAM (conversations nobody
here wrote) and the shipped ``memory_eval`` set (facts that change over time: the stale rate).

    python bench/ranking_weights.py DATA_DIR [--weights '{"name": {...}, ...}']

DATA_DIR is an embedded database that ``bench/locomo.py`` or ``bench/beam.py`` left behind
(each prints where, one ``/tmp/memoryhub-{locomo,beam}-*`` per configuration; set that
configuration's variables here too): its clients are searched again, in process, with each
weighting (no re-ingest), and the figures computed as ``locomo_eval.py`` and
``beam_eval.py`` compute them (BEAM: the user's evidence, and ``ku``, the share of knowledge
updates whose new statement ranks above the old). Run it on one database of each to choose
weights on both. ``memory_eval`` runs in the same database, rolled back. A variant is overrides of
``memories.services.retrieval.DEFAULT_WEIGHTS``; its UPPER CASE keys are memoryhub settings
instead (``{"TEXT_SCALE": "query", "text": 0.3}``), set for that variant alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _report import report, rows_beside

ROOT = Path(__file__).resolve().parent.parent
BENCHMARK = ROOT.parent / "shared" / "benchmarks" / "locomo"
BEAM = ROOT.parent / "shared" / "benchmarks" / "beam" / "beam_500k_dev.json.gz"
KS = (5, 10, 20)

VARIANTS: dict[str, dict] = {
    "default": {},
    "text 0.15": {"text": 0.15},
    "text 0.35": {"text": 0.35},
    "recency 0.05": {"recency": 0.05},
    "recency 0.2": {"recency": 0.2},
    "speaker 0": {"speaker": 0.0},
    "scale query": {"TEXT_SCALE": "query"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--weights", help="JSON: name → overrides (default: a small sweep)")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARK)
    parser.add_argument("--eval-only", action="store_true", help="memory_eval alone (quick)")
    parser.add_argument("--no-eval", action="store_true", help="the benchmark alone")
    args = parser.parse_args()
    open_database(args.data_dir)
    from memories.evaluation import runner
    from memories.services.retrieval import ranking_weights

    variants = json.loads(args.weights) if args.weights else VARIANTS
    weightings = {
        name: {**ranking_weights(), **{k: v for k, v in over.items() if not k.isupper()}}
        for name, over in variants.items()
    }
    questions = [] if args.eval_only else questions_here(args.benchmark_dir)
    extra = "ku   " if any(qa.update for qa in questions) else ""  # BEAM's updates
    print(
        f"{'weighting':<16} r@5   r@10  r@20  tr@10 chars {extra} "
        "| eval r@1 r@3 r@10 stale@3 stale@10"
    )
    table: dict[str, dict[str, float]] = {}
    for name, weights in weightings.items():
        overrides = {k: v for k, v in variants[name].items() if k.isupper()}
        saved = {k: os.environ.get(f"MEMORYHUB_{k}") for k in overrides}
        os.environ.update({f"MEMORYHUB_{k}": str(v) for k, v in overrides.items()})
        figures, numbers = _figures(questions, weights) if questions else ("", {})
        found = stale = ""
        if not args.no_eval:
            scores = {}
            with open(os.devnull, "w") as quiet:
                for k in (1, 3, 10):
                    evaluated = runner.evaluate(
                        dataset=runner.load(), k=k, weightings={name: weights}, progress=quiet
                    )
                    scores[k] = evaluated[name]
            found = " ".join(f"{scores[k]['recall@k']:.3f}" for k in (1, 3, 10))
            stale = " ".join(f"{scores[k]['stale_rate']:.3f}" for k in (3, 10))
            numbers.update({f"memory_eval recall@{k}": scores[k]["recall@k"] for k in (1, 3, 10)})
            numbers.update({f"memory_eval stale@{k}": scores[k]["stale_rate"] for k in (3, 10)})
        table[name] = numbers
        print(f"{name:<16} {figures:<35} | {found} {stale}", flush=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(f"MEMORYHUB_{k}", None)
            else:
                os.environ[f"MEMORYHUB_{k}"] = v
    report(f"ranking_weights ({args.data_dir.name})", rows_beside(table))


@dataclass(frozen=True)
class _Question:
    client: Any  # a memories.models.Client (imported once Django is set up)
    q: str
    ev: set  # the evidence ids
    words: dict  # evidence id → its content words
    tokens: Callable[[str], set]  # the benchmark's own word splitter
    empty_covered: bool  # an evidence without content words counts as found in the text
    update: tuple | None = None  # BEAM: (new ids, old ids) of a knowledge update
    kind: str = ""  # BEAM: the question's type; LoCoMo: its category


def open_database(data_dir: Path) -> None:
    """Django set up on the embedded database a benchmark run left in ``data_dir``."""
    os.environ["MEMORYHUB_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    os.environ.setdefault("MEMORYHUB_LOG_LEVEL", "ERROR")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def questions_here(benchmark_dir: Path = BENCHMARK) -> list[_Question]:
    """The benchmark questions on the clients of the database Django is set up on: LoCoMo's
    or BEAM's, told apart by the clients' references (``locomo-…`` or a chat's number)."""
    from memories.models import Client

    clients = {c.external_ref.rsplit("-", 1)[0]: c for c in Client.objects.all()}
    if any(ref.startswith("locomo-") for ref in clients):
        sys.path.insert(0, str(benchmark_dir))  # LoCoMo's own eval script
        return _locomo(clients, benchmark_dir)
    return _beam(clients)


def _locomo(clients, benchmark_dir: Path) -> list[_Question]:
    """LoCoMo's questions on the clients here: client, question, evidence, evidence words."""
    from locomo_eval import questions_of, turns_of, words

    found = []
    for sample in json.loads((benchmark_dir / "locomo_dev.json").read_text()):
        client = clients.get(f"locomo-{sample['sample_id']}")
        if client is None:
            continue
        text_of = {t["id"]: words(t["text"]) for t in turns_of(sample)}
        for qa in questions_of(sample, set(text_of)):
            # An evidence turn without content words counts as covered, as locomo_eval.py does.
            kind = f"category {qa['cat']}"
            found.append(_Question(client, qa["q"], set(qa["ev"]), text_of, words, True, kind=kind))
    return found


def _beam(clients) -> list[_Question]:
    """BEAM's questions on the chats here, with the user's evidence (as ``beam_eval.py``)."""
    import gzip

    sys.path.insert(0, str(BEAM.parent))
    from beam_eval import words

    found = []
    for chat in json.loads(gzip.decompress(BEAM.read_bytes())):
        client = clients.get(str(chat["chat"]))
        if client is None:
            continue
        role = {m["id"]: m["role"] for m in chat["messages"]}
        text_of = {f"m{m['id']}": words(m["text"]) for m in chat["messages"]}
        for qa in chat["questions"]:
            ev = {f"m{e}" for e in qa["ev"] if role.get(e) == "user"}
            if not ev:
                continue
            user = {f"m{e}" for e in qa.get("new", []) if role.get(e) == "user"}
            old = {f"m{e}" for e in qa.get("old", []) if role.get(e) == "user"}
            update = (user, old) if user and old and user != old else None
            found.append(_Question(client, qa["q"], ev, text_of, words, False, update, qa["type"]))
    return found


def _covered(evidence: set[str], seen: set[str], empty_covered: bool) -> bool:
    """Half the evidence's content words are in the returned text."""
    if not evidence:
        return empty_covered
    return len(evidence & seen) >= 0.5 * len(evidence)


def _figures(questions: list[_Question], weights: dict) -> tuple[str, dict[str, float]]:
    """recall@5/10/20, text recall@10 and the median characters of the top 10 (and, for
    BEAM, the share of updates whose new statement ranks above the old)."""
    from memories.services.retrieval import memories_search

    recall: dict[int, list[float]] = {k: [] for k in KS}
    by_kind: dict[str, list[float]] = {}
    text_recall, chars, ku = [], [], []
    for qa in questions:
        hits = memories_search(
            client=qa.client,
            query=qa.q,
            k=max(KS),
            weights=weights,
            record_access=False,
            with_evidence=True,
        )
        rank: dict[str, int] = {}
        for position, hit in enumerate(hits):
            for e in hit.evidence:
                rank.setdefault(e["external_id"], position)
        for k in KS:
            recall[k].append(sum(1 for e in qa.ev if rank.get(e, k) < k) / len(qa.ev))
        if qa.kind:
            by_kind.setdefault(qa.kind, []).append(recall[10][-1])
        seen = qa.tokens(" ".join(h.memory.content for h in hits[:10]))
        covered = [e for e in qa.ev if _covered(qa.words[e], seen, qa.empty_covered)]
        text_recall.append(len(covered) / len(qa.ev))
        chars.append(sum(len(h.memory.content) for h in hits[:10]))
        if update := qa.update:
            new = min((rank[e] for e in update[0] if e in rank), default=None)
            old = min((rank[e] for e in update[1] if e in rank), default=None)
            ku.append(new is not None and (old is None or new < old))
    numbers = {f"recall@{k}": round(statistics.mean(recall[k]), 3) for k in KS}
    numbers["text_recall@10"] = round(statistics.mean(text_recall), 3)
    numbers["median_chars@10"] = statistics.median(chars)
    if ku:
        numbers["update_above_old"] = round(statistics.mean(ku), 3)
    out = " ".join(f"{statistics.mean(recall[k]):.3f}" for k in KS)
    out += f" {statistics.mean(text_recall):.3f} {int(statistics.median(chars)):5d}"
    out += f" {statistics.mean(ku):.3f}" if ku else ""
    if by_kind:  # recall@10 by question type (BEAM) or category (LoCoMo), on a line of its own
        out += "\n    " + " ".join(
            f"{kind[:12]} {statistics.mean(v):.3f}" for kind, v in sorted(by_kind.items())
        )
    return out, numbers


if __name__ == "__main__":
    main()
