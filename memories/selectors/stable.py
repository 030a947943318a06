"""What makes a memory a stable fact of its client: the static part of the profile holds
these, and the review queue tells a supervisor whether a decision changes it. Here, below
both, so that neither app has to import the other for one rule."""

from __future__ import annotations

from memories.models import Category, Kind, Memory

STATIC_CATEGORIES = (Category.PREFERENCE, Category.FACT, Category.RELATIONSHIP, Category.CONSTRAINT)
STATIC_KINDS = (Kind.SEMANTIC, Kind.PROCEDURAL, Kind.PRINCIPLE)
STATIC_MIN_CONFIDENCE = 0.7


def is_static(memory: Memory) -> bool:
    """Whether the static profile would hold ``memory`` (its ranking decides if it shows)."""
    return (
        memory.kind in STATIC_KINDS
        and memory.category in STATIC_CATEGORIES
        and memory.confidence >= STATIC_MIN_CONFIDENCE
    )
