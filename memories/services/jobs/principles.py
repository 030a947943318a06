"""Principle extraction (seed 004 §8 job D, weekly): several related facts, decisions or
procedures of a client, backed by several events from more than one session, become one
``principle`` candidate ("Guiding principle: decided not to invest in crypto") that a
supervisor reviews. One memory, or one conversation, never makes a principle.

Related means close in meaning (cosine ≥ PRINCIPLE_SIMILARITY) with the same polarity and,
when both name what they are about, the same value: "wants crypto" and "does not want
crypto" never make a principle together.
"""

from __future__ import annotations

from memories.models import Event, Kind
from memories.services.jobs.consolidation import Consolidation
from memories.services.jobs.runner import JobCounts


def _principle_output(members: list[dict], events: list[Event]) -> dict:
    sessions = {e.session_id or e.pk for e in events}
    return {
        "kind": Kind.PRINCIPLE,
        "category": "",
        "content": f"Guiding principle: {members[0]['content']}",
        "title": f"From {len(members)} related memories",
        "metadata": {
            "job": "extract_principles",
            "members": len(members),
            "evidence": len(events),
            "sessions": len(sessions),
        },
    }


PRINCIPLES = Consolidation(
    job="extract_principles",
    kinds=(Kind.SEMANTIC, Kind.PROCEDURAL, Kind.DECISION),
    similarity="PRINCIPLE_SIMILARITY",
    min_members="PRINCIPLE_MIN_MEMORIES",
    min_overlap=None,
    min_evidence="PRINCIPLE_MIN_EVIDENCE",
    min_spread=2,
    spread_by_session=True,
    output=_principle_output,
)


def principles_extract(*, tenant_id=None, counts: JobCounts) -> None:
    PRINCIPLES.run(tenant_id=tenant_id, counts=counts)
