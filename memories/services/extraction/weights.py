"""How sure a heuristic candidate is, and how much it matters: from its kind and category,
whether it was reported or hedged, and whether it names a known attribute or an amount."""

from __future__ import annotations

from memories.services.extraction.clauses import KNOWN_ATTRIBUTES


def confidence(kind: str, category: str, reported: bool, *, hedged: bool, assistant: bool) -> float:
    if kind == "operational":
        value = 0.8
    elif category in ("fact", "decision", "constraint", "relationship") or kind == "decision":
        value = 0.9
    else:
        value = 0.8 if category == "event" else 0.85
    if reported:
        value = 0.75
    if assistant:
        value = min(value, 0.7)
    return 0.55 if hedged else value


_IMPORTANCE = {
    "decision": 0.8,
    "constraint": 0.8,
    "relationship": 0.7,
    "goal": 0.7,
    "procedural": 0.7,
    "fact": 0.6,
    "event": 0.5,
    "preference": 0.4,
}


def importance(kind: str, category: str, attribute: str, *, amount: bool) -> float:
    known = attribute in KNOWN_ATTRIBUTES
    if kind in ("operational", "decision"):
        value = 0.3 if kind == "operational" else _IMPORTANCE["decision"]
    elif category == "preference":
        value = 0.6 if known else _IMPORTANCE["preference"]
    else:
        value = _IMPORTANCE.get(category, 0.5) + (0.1 if known else 0.0)
    return round(min(1.0, value + (0.1 if amount else 0.0)), 2)
