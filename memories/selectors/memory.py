"""Reads of one memory: its evidence, relations and versions, and which of the memories
linked to it a user may see."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connections
from django.db.models import Q
from django.db.models.expressions import RawSQL

from memories import permissions
from memories.models import LIVE_STATUSES, AuditEntry, Memory, Relation, RelationType
from memoryhub import replica

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
    with connections[replica.read_alias()].cursor() as cursor:
        cursor.execute(EVIDENCE_SQL, [list(memory_ids)])
        return evidence_grouped(cursor.fetchall())


def relations_of(memory: Memory) -> list[dict]:
    out = []
    for relation in Relation.objects.filter(source=memory).select_related("target"):
        out.append({"type": relation.type, "direction": "out", "memory": relation.target})
    for relation in Relation.objects.filter(target=memory).select_related("source"):
        out.append({"type": relation.type, "direction": "in", "memory": relation.source})
    return out


# Every memory linked to one by ``updates`` edges, either way and transitively: UNION (not
# UNION ALL) keeps each id once, so a cycle ends; the LIMIT stops the walk early.
_VERSIONS_SQL = (
    "WITH RECURSIVE chain(id) AS (SELECT %s::uuid UNION "
    "SELECT CASE WHEN r.source_id = chain.id THEN r.target_id ELSE r.source_id END "
    "FROM chain JOIN memories_relation r ON r.type = %s "
    "AND (r.source_id = chain.id OR r.target_id = chain.id)) "
    "SELECT id FROM chain LIMIT %s"
)


def versions_of(memory: Memory, *, limit: int = 200) -> list[Memory]:
    """Every version linked to ``memory`` by ``updates`` edges, oldest first (one query)."""
    # A constant statement; the values are bound parameters.
    chain = RawSQL(_VERSIONS_SQL, [memory.pk, RelationType.UPDATES.value, limit])  # noqa: S611
    return list(Memory.objects.filter(pk__in=chain).select_related("client").order_by("created_at"))


@dataclass(frozen=True)
class Linked:
    """The memories linked to one that a user may see: its relations (``relations_of``
    rows) and its versions, and the ids of all of them."""

    relations: list[dict]
    versions: list[Memory]
    visible: frozenset


def linked_for(user, memory: Memory, *, relations: bool = True, versions: bool = True) -> Linked:
    """What ``user`` may see of the memories linked to ``memory``: one permission-filtered
    query over every linked id, whatever the number of links."""
    related = relations_of(memory) if relations else []
    chain = versions_of(memory) if versions else []
    ids = {r["memory"].pk for r in related} | {v.pk for v in chain}
    visible = frozenset(
        permissions.memories_visible_to(user, memory.tenant_id)
        .filter(pk__in=ids)
        .values_list("pk", flat=True)
    )
    return Linked(
        relations=[r for r in related if r["memory"].pk in visible],
        versions=[v for v in chain if v.pk in visible],
        visible=visible,
    )


@dataclass(frozen=True)
class StatusChange:
    """Why a memory left the answers, as its page says it: what happened (``what``, one of
    ``memories.templatetags.words.CHANGES``), naming the memory that took its place or was
    kept instead (``other``, when the user may see it; else "another memory"), then who,
    when and why."""

    what: str
    other: Memory | None
    actor: str = ""
    at: datetime | None = None
    reason: str = ""


def status_change(user, memory: Memory, linked: Linked) -> StatusChange | None:
    """Why ``memory`` is no longer live: the latest change a person made that did it (a
    review decision, a forget, a correction that replaced it, the undo of it as a
    correction), from its audit entry; else what ingest or a job related to it (an update,
    a merge)."""
    if memory.status in LIVE_STATUSES:
        return None
    entry = _latest_change(memory, linked)
    if entry is not None:
        seen = {str(r["memory"].pk): r["memory"] for r in linked.relations}
        what = {
            "memory.forget": "forgotten",
            "memory.correct": "corrected",
            "memory.undo": "undone",
        }
        if entry.action in what:
            # A correction (the entry's memory) replaced it, or it was a correction and was
            # taken back: the entry's memory is the other; a forget names none.
            other = None if entry.action == "memory.forget" else seen.get(entry.object_id)
            return StatusChange(
                what[entry.action], other, entry.actor_label, entry.at, entry.reason
            )
        decision = entry.data.get("decision")
        kept = entry.data.get("kept")
        other = (
            permissions.memories_visible_to(user, memory.tenant_id).filter(pk=kept).first()
            if kept
            else None
        )
        decided = decision if decision in ("accept_new", "keep_old", "merge") else "against"
        return StatusChange(decided, other, entry.actor_label, entry.at, entry.reason)
    for relation in linked.relations:
        kind, direction, other = relation["type"], relation["direction"], relation["memory"]
        if kind == RelationType.UPDATES and direction == "in":
            return StatusChange("updated", other, at=memory.invalidated_at)
        if kind == RelationType.MERGED_INTO and direction == "out":
            return StatusChange("merged", other, at=memory.invalidated_at)
    return None


def _latest_change(memory: Memory, linked: Linked) -> AuditEntry | None:
    """The latest audit entry that took ``memory`` out of the answers: one on the memory
    itself (a review's invalidation, a forget), a correction that names it (on the memory
    that updates it), or an undo that deleted it (on the memory it had updated). Found by
    object id, which is indexed, among the memories linked to it by ``updates``."""
    me = str(memory.pk)
    newer = [str(r["memory"].pk) for r in linked.relations if _updates(r, "in")]
    older = [str(r["memory"].pk) for r in linked.relations if _updates(r, "out")]
    about = (
        Q(object_id=me, action__in=("memory.invalidate", "memory.forget"))
        | Q(object_id__in=newer, action="memory.correct", data__corrects=me)
        | Q(object_id__in=older, action="memory.undo", data__deleted=me)
    )
    return (
        AuditEntry.objects.filter(tenant_id=memory.tenant_id, object_type="memory")
        .filter(about)
        .order_by("-at", "-pk")
        .first()
    )


def _updates(relation: dict, direction: str) -> bool:
    return relation["type"] == RelationType.UPDATES and relation["direction"] == direction
