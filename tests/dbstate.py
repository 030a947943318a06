"""What a denied request must leave as it was: row counts and a digest of mutable state."""

from __future__ import annotations

import hashlib

from curation.models import ReviewItem
from memories.models import (
    AuditEntry,
    Event,
    Evidence,
    Memory,
    MemoryAccess,
    Relation,
    Session,
)
from profiles.models import Profile

MODELS = (Memory, Event, Session, Evidence, Relation, ReviewItem, AuditEntry, MemoryAccess, Profile)


def db_state() -> dict:
    counts = {model._meta.label: model.objects.count() for model in MODELS}
    rows = [
        *Memory.objects.order_by("pk").values_list(
            "pk", "status", "tier", "tier_pinned", "invalidated_at", "canonical_id", "confidence"
        ),
        *ReviewItem.objects.order_by("pk").values_list(
            "pk", "state", "decision", "decided_by_id", "reason"
        ),
        *Profile.objects.order_by("pk").values_list("pk", "version"),
    ]
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()
    return {"counts": counts, "digest": digest}
