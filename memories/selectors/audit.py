"""The audit trail as the pages show it: who changed what and why, for one memory or one
client, the ids an entry names turned into links to the memories the reader may see.

The entries of a client are those about the client itself, its memories and its review
items (review items hang off the client: ``memories`` reads them through the client's
reverse relation, without importing ``curation``). The entries of a memory are those
about it, about its review items, and those about a memory linked to it that name it (a
correction that superseded it, a statement that updated it).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import CharField, Q, QuerySet
from django.db.models.functions import Cast
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from memories import permissions
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Client,
    Memory,
    Relation,
    RelationType,
    Status,
    Tier,
)
from memories.services.write.corrections import FORGET, UNDO, UNDOABLE, restored_by

MEMORY_ENTRIES_SHOWN = 200

# What an action did, in words; an action not listed shows as it is stored.
ACTION_LABELS = {
    "memory.added": _("recorded it"),
    "memory.deduplicated": _("heard it again"),
    "memory.updated": _("recorded a newer statement that supersedes another"),
    "memory.extended": _("recorded detail that extends another"),
    "memory.conflict": _("recorded a statement that contradicts another"),
    "memory.correct": _("corrected a memory"),
    "memory.forget": _("forgot it"),
    "memory.invalidate": _("took it out of the answers in review"),
    "memory.undo": _("undid a change"),
    "memory.feedback": _("gave feedback"),
    "memory.set_tier": _("moved it to another tier"),
    "memory.expired": _("let it expire"),
    "memory.merge": _("merged a duplicate"),
    "memory.consolidate": _("consolidated episodes into it"),
    "memory.summarize": _("summarised a session"),
    "review.open": _("opened a review"),
    "review.decide": _("decided a review"),
    "review.obsolete": _("closed a review that no longer applied"),
    "promotion.approve": _("approved a promotion"),
    "promotion.reject": _("rejected a promotion"),
    "client.assign_advisor": _("assigned an advisor"),
    "client.unassign_advisor": _("unassigned an advisor"),
    "client.assign_group": _("gave a group the client"),
    "client.unassign_group": _("took the client from a group"),
    "client.create": _("created the client"),
    "client.update": _("changed the client's name or language"),
    "client.imported": _("imported the client"),
}
# The memory ids an entry's data names, and how each reads.
LINK_LABELS = {
    "corrects": _("corrects"),
    "related": _("related to"),
    "memory": _("memory"),
    "other": _("other memory"),
    "kept": _("kept instead"),
    "invalidated": _("invalidated"),
    "restored": _("restored"),
    "deleted": _("deleted"),
    "replaces": _("takes the place of"),
}
# The review items an entry's data names.
REVIEW_KEYS = ("review_item",)
# An id in an entry's reason (entries written before ids moved to ``data``): shown as the
# memory or the review it names, never as an id.
_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


@dataclass(frozen=True)
class ReviewLink:
    """A review item, as the trail links to it: the trail of its memory, at the entry
    that decided it (or opened it, while it is open)."""

    memory: Memory
    entry_id: int
    at: datetime
    decided: bool


# A review's decision as the audit trail names it (curation's ReviewItem.Decision: memories
# does not import curation).
DECISIONS = {
    "keep_old": _("keep old"),
    "accept_new": _("accept new"),
    "keep_both": _("keep both"),
    "merge": _("merge"),
    "approve": _("approve"),
    "reject": _("reject"),
}


# A client's fields as the trail names them (client.create, client.update).
FIELDS = {"display_name": _("name"), "language": _("language")}


def _tier(value) -> str:
    return str(Tier(value).label.split(" (")[0]).lower() if value in Tier.values else str(value)


@dataclass
class AuditRow:
    entry: AuditEntry
    label: str
    subject: Memory | None  # the memory the entry is about, if the reader may see it
    links: list[tuple[str, Memory]] = field(default_factory=list)
    details: list[tuple[str, str]] = field(default_factory=list)  # tier moves and the like
    reviews: list[ReviewLink] = field(default_factory=list)  # the review items it names
    # The reason, its ids made the memories and reviews they name: ("text", str),
    # ("memory", Memory), ("review", ReviewLink) or ("hidden", "") for one not shown.
    reason_parts: list[tuple[str, object]] = field(default_factory=list)
    undoable: bool = False  # a correction or forget not undone yet
    undone: bool = False  # a correction or forget undone since


def _text_ids(queryset: QuerySet) -> QuerySet:
    return queryset.annotate(text_id=Cast("pk", CharField())).values("text_id")


def client_audit(client: Client) -> QuerySet[AuditEntry]:
    """Every entry about ``client``, its memories and its review items, newest first."""
    reviews = client.review_items.all()
    about = (
        Q(object_type="client", object_id=str(client.pk))
        | Q(object_type="memory", object_id__in=_text_ids(Memory.objects.filter(client=client)))
        | Q(object_type="review_item", object_id__in=_text_ids(reviews))
    )
    return (
        AuditEntry.objects.filter(tenant_id=client.tenant_id).filter(about).order_by("-at", "-pk")
    )


def memory_audit(memory: Memory) -> list[AuditEntry]:
    """The entries about ``memory`` and those of its linked memories that name it."""
    me = str(memory.pk)
    linked = {
        str(i)
        for pair in Relation.objects.filter(Q(source=memory) | Q(target=memory)).values_list(
            "source_id", "target_id"
        )
        for i in pair
    }
    reviews = Memory.objects.filter(pk=memory.pk).values_list("review_items", flat=True)
    reviews_as_other = Memory.objects.filter(pk=memory.pk).values_list(
        "review_items_as_other", flat=True
    )
    review_ids = {str(i) for i in [*reviews, *reviews_as_other] if i}
    entries = AuditEntry.objects.filter(tenant_id=memory.tenant_id).filter(
        Q(object_type="memory", object_id__in=linked | {me})
        | Q(object_type="review_item", object_id__in=review_ids)
    )
    return [
        e
        for e in entries.order_by("-at", "-pk")[:MEMORY_ENTRIES_SHOWN]
        if e.object_id == me or e.object_type == "review_item" or me in _named(e)
    ]


def _named(entry: AuditEntry) -> set[str]:
    data = entry.data if isinstance(entry.data, dict) else {}
    return {str(v) for k, v in data.items() if k in LINK_LABELS and v}


def undone_entries(entries) -> set[str]:
    """The ids of those of ``entries`` (corrections, forgets) that were undone: the undo
    entries are found by the memory they restored (indexed), then matched by id."""
    entries = [e for e in entries if e.action in UNDOABLE]
    if not entries:
        return set()
    found = AuditEntry.objects.filter(
        object_type="memory", object_id__in={restored_by(e) for e in entries}, action=UNDO
    )
    wanted = {str(e.pk) for e in entries}
    return {str(u) for u in found.values_list("data__undoes", flat=True)} & wanted


def pending_undo(memory: Memory) -> AuditEntry | None:
    """The latest correction or forget of ``memory`` that an undo would take back now: it
    forgot this memory, which is still forgotten; or this memory is a correction, or was
    corrected, and both still stand as the correction left them."""
    me = str(memory.pk)
    corrections = Relation.objects.filter(target=memory, type=RelationType.UPDATES)
    ids = {me} | {str(i) for i in corrections.values_list("source_id", flat=True)}
    entries = list(
        AuditEntry.objects.filter(
            tenant_id=memory.tenant_id, object_type="memory", object_id__in=ids
        )
        .filter(action__in=UNDOABLE)
        .order_by("-at", "-pk")[:10]
    )
    entries = [e for e in entries if e.object_id == me or e.data.get("corrects") == me]
    if not entries or str(entries[0].pk) in undone_entries(entries[:1]):
        return None
    latest = entries[0]
    if latest.action == FORGET:
        return latest if memory.status == Status.DELETED else None
    if latest.object_id == me:  # this memory is the correction
        other = Memory.objects.filter(pk=latest.data.get("corrects")).first()
        fits = memory.status in LIVE_STATUSES and other and other.status == Status.SUPERSEDED
    else:  # this memory was corrected
        other = Memory.objects.filter(pk=latest.object_id).first()
        fits = memory.status == Status.SUPERSEDED and other and other.status in LIVE_STATUSES
    return latest if fits else None


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def audit_rows(user, tenant_id, entries) -> list[AuditRow]:
    """``entries`` as rows to show ``user``: the memories they name resolved in one query,
    those the user may not see left out."""
    entries = list(entries)
    wanted = {e.object_id for e in entries if e.object_type == "memory"}
    for entry in entries:
        wanted |= _named(entry)
    in_reasons = {i for e in entries for i in _ID.findall(e.reason or "")}
    review_ids = {str(e.data.get(k)) for e in entries for k in REVIEW_KEYS if e.data.get(k)}
    review_entries = _review_entries(tenant_id, review_ids | in_reasons)
    wanted |= in_reasons | {str(e.data.get("memory")) for e in review_entries.values()}
    visible = permissions.memories_visible_to(user, tenant_id).in_bulk(
        [i for i in wanted if _is_uuid(i)]
    )
    by_id = {str(k): v for k, v in visible.items()}
    reviews = {
        review_id: ReviewLink(
            by_id[str(e.data.get("memory"))], e.pk, e.at, e.action == "review.decide"
        )
        for review_id, e in review_entries.items()
        if str(e.data.get("memory")) in by_id
    }
    undone = undone_entries(entries)
    rows = []
    for entry in entries:
        data = entry.data if isinstance(entry.data, dict) else {}
        subject = by_id.get(entry.object_id) if entry.object_type == "memory" else None
        if subject is None and entry.object_type == "review_item":
            subject = by_id.get(str(data.get("memory")))
        links = [
            (str(LINK_LABELS[k]), by_id[str(v)])
            for k, v in data.items()
            if k in LINK_LABELS and str(v) in by_id and by_id[str(v)] != subject
        ]
        rows.append(
            AuditRow(
                entry=entry,
                label=str(ACTION_LABELS.get(entry.action, entry.action)),
                subject=subject,
                links=links,
                details=_details(entry.action, data),
                reviews=[reviews[str(data[k])] for k in REVIEW_KEYS if str(data.get(k)) in reviews],
                reason_parts=_reason_parts(entry.reason or "", by_id, reviews),
                undoable=entry.action in UNDOABLE
                and str(entry.pk) not in undone
                and not entry.data.get("imported"),
                undone=str(entry.pk) in undone,
            )
        )
    return rows


def _review_entries(tenant_id, review_ids: set[str]) -> dict[str, AuditEntry]:
    """review item id → the entry that decided it (else the one that opened it), of those
    of ``review_ids`` the trail holds: the review's memory is in its data."""
    entries = AuditEntry.objects.filter(
        tenant_id=tenant_id,
        object_type="review_item",
        object_id__in=review_ids,
        action__in=("review.open", "review.decide"),
    ).order_by("at", "pk")
    found: dict[str, AuditEntry] = {}
    for entry in entries:
        if entry.action == "review.decide" or entry.object_id not in found:
            found[entry.object_id] = entry
    return found


def _reason_parts(reason: str, memories: dict, reviews: dict) -> list[tuple[str, object]]:
    parts: list[tuple[str, object]] = []
    at = 0
    for match in _ID.finditer(reason):
        if match.start() > at:
            parts.append(("text", reason[at : match.start()]))
        found = match.group()
        if found in reviews:
            parts.append(("review", reviews[found]))
        elif found in memories:
            parts.append(("memory", memories[found]))
        else:
            parts.append(("hidden", ""))
        at = match.end()
    if at < len(reason):
        parts.append(("text", reason[at:]))
    return parts


def _details(action: str, data: dict) -> list[tuple[str, str]]:
    if action == "memory.set_tier":
        moved = data.get("from") != data.get("to")  # else: pinned where it was
        old, new = _tier(data.get("from")), _tier(data.get("to"))
        tier = f"{old} → {new}" if moved else new
        pinned = [(gettext("pinned"), gettext("yes"))] if data.get("pinned") else []
        return [(gettext("tier"), tier), *pinned]
    if action == "review.decide":
        decision = str(data.get("decision", ""))
        return [(gettext("decision"), str(DECISIONS.get(decision, decision.replace("_", " "))))]
    if action in ("client.assign_advisor", "client.unassign_advisor"):
        return [(gettext("advisor"), str(data.get("advisor", "")))]
    if action in ("client.assign_group", "client.unassign_group"):
        return [(gettext("group"), str(data.get("group", "")))]
    if action in ("client.create", "client.update"):
        fields = [str(FIELDS.get(f, f)) for f in data.get("fields") or []]
        return [(gettext("fields"), ", ".join(fields))]
    if action == "memory.feedback":
        return [(gettext("useful"), gettext("yes") if data.get("useful") else gettext("no"))]
    if action in ("memory.forget", "memory.correct") and isinstance(data.get("before"), dict):
        status = str(data["before"].get("status", ""))
        return [
            (
                gettext("was"),
                str(Status(status).label).lower() if status in Status.values else status,
            )
        ]
    return []
