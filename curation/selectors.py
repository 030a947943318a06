"""Reads for the review queue: the items a reviewer sees, with what they need to decide."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils import timezone

from curation.models import ReviewItem
from memories.conf import setting
from memories.models import LIVE_STATUSES, Evidence, Memory

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


def score_components(components: dict) -> list[dict[str, Any]]:
    """A promotion score's components as rows: name, value (0–1, with a bar), the weight
    it has in the score (PROMOTION_WEIGHTS) and its contribution; then the counts the
    scorer kept beside them (restatements, reads, sessions) as plain text."""
    weights = setting("PROMOTION_WEIGHTS")
    scored: list[dict[str, Any]] = []
    counts: list[dict[str, Any]] = []
    for name, raw in (components or {}).items():
        if isinstance(raw, dict):
            value = raw.get("value", raw.get("score"))
            weight = raw.get("weight")
            contribution = raw.get("contribution")
        elif name in weights:
            value, weight, contribution = raw, weights[name], None
        else:
            counts.append({"name": _label(name), "text": str(raw), "bar": None})
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            scored.append({"name": _label(name), "text": str(value), "bar": None})
            continue
        if contribution is None and isinstance(weight, int | float):
            contribution = weight * value
        scored.append(
            {
                "name": _label(name),
                "value": float(value),
                "weight": weight,
                "contribution": contribution,
                "bar": round(max(0.0, min(1.0, float(value))) * 100),
            }
        )
    # jsonb keeps its own key order: show the score's components in the weights' order
    order = {_label(name): index for index, name in enumerate(weights)}
    scored.sort(key=lambda row: order.get(row["name"], len(order)))
    return scored + counts


def _label(name: str) -> str:
    return str(name).replace("_", " ").capitalize()


def open_disputes(client) -> dict[str, list[Memory]]:
    """Memory id → the memories it contradicts in a conflict still waiting for a person,
    for ``client``: only pairs whose two memories are both current (one forgotten or
    expired meanwhile disputes nothing)."""
    now = timezone.now()
    items = ReviewItem.objects.filter(
        client_id=client.pk, type=ReviewItem.Type.CONFLICT, state=ReviewItem.State.OPEN
    ).select_related("memory", "other_memory")
    rivals: dict[str, list[Memory]] = defaultdict(list)
    for item in items:
        pair = (item.memory, item.other_memory)
        if all(m is not None and _current(m, now) for m in pair):
            new, old = pair
            rivals[str(new.pk)].append(old)
            rivals[str(old.pk)].append(new)
    return dict(rivals)


def _current(memory: Memory, now) -> bool:
    return memory.status in LIVE_STATUSES and (memory.expires_at is None or memory.expires_at > now)
