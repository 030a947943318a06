"""Reads of one memory: its evidence, relations and versions."""

from __future__ import annotations

from collections import deque

from django.db import connection

from memories.models import Memory, Relation, RelationType

# The evidence shown with a memory: what the agent can cite. A memory id array is the
# one parameter; search sends it in the same round trip as the access log.
EVIDENCE_SQL = (
    "SELECT ev.memory_id, ev.event_id, e.external_id, e.observed_at, ev.role "
    "FROM memories_evidence ev JOIN memories_event e ON e.id = ev.event_id "
    "WHERE ev.memory_id = ANY(%s::uuid[]) ORDER BY e.observed_at, ev.id"
)


def evidence_grouped(rows) -> dict:
    """memory id → [{"event", "external_id", "observed_at", "role"}], in the order of
    ``rows`` (rows as EVIDENCE_SQL returns them)."""
    out: dict = {}
    for memory_id, event_id, external_id, observed_at, role in rows:
        out.setdefault(memory_id, []).append(
            {
                "event": str(event_id),
                "external_id": external_id,
                "observed_at": observed_at,
                "role": role,
            }
        )
    return out


def evidence_for(memory_ids) -> dict:
    """memory id → [{"event", "external_id", "observed_at", "role"}], oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(EVIDENCE_SQL, [list(memory_ids)])
        return evidence_grouped(cursor.fetchall())


def relations_of(memory: Memory) -> list[dict]:
    out = []
    for relation in Relation.objects.filter(source=memory).select_related("target"):
        out.append({"type": relation.type, "direction": "out", "memory": relation.target})
    for relation in Relation.objects.filter(target=memory).select_related("source"):
        out.append({"type": relation.type, "direction": "in", "memory": relation.source})
    return out


def versions_of(memory: Memory, *, limit: int = 200) -> list[Memory]:
    """Every version linked to ``memory`` by ``updates`` edges, oldest first."""
    seen = {memory.pk}
    queue = deque([memory.pk])
    while queue and len(seen) < limit:
        current = queue.popleft()
        edges = (
            Relation.objects.filter(type=RelationType.UPDATES)
            .filter(source_id=current)
            .values_list("target_id", flat=True)
            .union(
                Relation.objects.filter(type=RelationType.UPDATES, target_id=current).values_list(
                    "source_id", flat=True
                )
            )
        )
        for other in edges:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return list(Memory.objects.filter(pk__in=seen).order_by("created_at"))
