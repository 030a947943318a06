"""The secrets detector, measured on both sides: a labelled set of sentences a client says
(``data/secrets.json``, en/it/es), some giving a secret and some only looking like they do.

- **withheld**: of the sentences that give secrets, the share whose every secret is withheld
  with nothing of its value left: each letter and digit of each labelled substring falls in
  a span the detector withholds ("[PIN withheld] 4 7 1" left three digits of "4 4 7 1",
  and counts as a miss);
- **kept**: of the look-alikes, the share left exactly as said (nothing withheld).

A row with ``before`` is the second event of a question and its answer: it is read with the
turn before it, as the write path reads it. In process; nothing is stored.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from memories.services.secrets import secrets_in

DATASET = Path(__file__).resolve().parent / "data" / "secrets.json"


def load(path: Path = DATASET) -> list[dict]:
    return json.loads(path.read_text())["sentences"]


def evaluate(rows: list[dict], found: list[list[tuple[int, int]]] | None = None) -> dict:
    """Each row with ``right`` added (and the spans found), and both shares overall, by
    language, by set and for the two-event rows. ``found``: the spans another detector
    withheld in each row (bench/secrets_said.py measures the one at the branch point);
    without it, this tree's."""
    if found is None:
        found = [detect(row) for row in rows]
    judged = [_judge(row, spans) for row, spans in zip(rows, found, strict=True)]
    return {
        "rows": judged,
        "overall": _scores(judged),
        "by_language": _by(judged, lambda r: r["lang"]),
        "by_set": _by(judged, lambda r: r.get("set", "development")),
        "by_events": _by(judged, lambda r: "two events" if r.get("before") else "one event"),
    }


def detect(row: dict) -> list[tuple[int, int]]:
    """The spans this tree's detector withholds in a row, read as the write path reads it."""
    return [(s.start, s.end) for s in secrets_in(row["text"], asked=row.get("before", ""))]


def _judge(row: dict, found: list[tuple[int, int]]) -> dict:
    if row["secrets"]:
        right = all(_covered(row["text"], secret, found) for secret in row["secrets"])
    else:
        right = not found
    return {**row, "right": right, "found": [row["text"][a:b] for a, b in found]}


def _covered(text: str, secret: str, found: list[tuple[int, int]]) -> bool:
    """Every letter and digit of every occurrence of ``secret`` is withheld."""
    at = text.find(secret)
    while at >= 0:
        for i in range(at, at + len(secret)):
            if text[i].isalnum() and not any(a <= i < b for a, b in found):
                return False
        at = text.find(secret, at + 1)
    return True


def _scores(rows: list[dict]) -> dict:
    secret = [r for r in rows if r["secrets"]]
    alike = [r for r in rows if not r["secrets"]]
    return {
        "sentences": len(rows),
        "secrets": len(secret),
        "withheld": sum(r["right"] for r in secret),
        "withheld_share": round(sum(r["right"] for r in secret) / len(secret), 3)
        if secret
        else None,
        "look_alikes": len(alike),
        "kept": sum(r["right"] for r in alike),
        "kept_share": round(sum(r["right"] for r in alike) / len(alike), 3) if alike else None,
    }


def _by(rows: list[dict], key) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return {name: _scores(group) for name, group in sorted(groups.items())}
