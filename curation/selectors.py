"""Reads for the review queue: the items a reviewer sees, with what they need to decide."""

from __future__ import annotations

from collections import defaultdict

from curation.models import ReviewItem
from memories.models import LIVE_STATUSES, Evidence

EVIDENCE_SHOWN = 5


def with_evidence(items: list[ReviewItem]) -> list[ReviewItem]:
    """Attach each item's memories' evidence (events, oldest first; at most a few each,
    with the total) and whether the item still applies, in one query."""
    ids = {i.memory_id for i in items} | {i.other_memory_id for i in items if i.other_memory_id}
    by_memory: dict = defaultdict(list)
    for evidence in (
        Evidence.objects.filter(memory_id__in=ids)
        .select_related("event")
        .order_by("event__observed_at")
    ):
        by_memory[evidence.memory_id].append(evidence)
    for item in items:
        item.new_evidence = by_memory[item.memory_id]
        item.old_evidence = by_memory[item.other_memory_id] if item.other_memory_id else []
        item.stale = any(
            m is not None and m.status not in LIVE_STATUSES
            for m in (item.memory, item.other_memory)
        )
        item.components = score_components(item.score_components)
    return items


def score_components(components: dict) -> list[dict]:
    """A promotion score's components as rows: name, value, weight and contribution when
    the scorer gave them, and a bar width in percent (values are on a 0–1 scale)."""
    rows = []
    for name, raw in (components or {}).items():
        if isinstance(raw, dict):
            value = raw.get("value", raw.get("score"))
            weight = raw.get("weight")
            contribution = raw.get("contribution")
        else:
            value, weight, contribution = raw, None, None
        if not isinstance(value, int | float) or isinstance(value, bool):
            rows.append({"name": _label(name), "text": str(value), "bar": None})
            continue
        if contribution is None and isinstance(weight, int | float):
            contribution = weight * value
        rows.append(
            {
                "name": _label(name),
                "value": float(value),
                "weight": weight,
                "contribution": contribution,
                "bar": round(max(0.0, min(1.0, float(value))) * 100),
            }
        )
    return rows


def _label(name: str) -> str:
    return str(name).replace("_", " ").capitalize()
