"""A person's corrections, and a supervisor's undo of a correction or a forget.

- ``memory_correct``: a person who may write a live memory says it is wrong and what is
  right. ADD-only holds: the right statement is a new memory, its source the person (and
  an event of theirs in the raw record, so it has evidence), that ``updates`` the old one,
  which becomes superseded, as the write path supersedes (``outcomes``); nothing is edited.
- ``change_undo``: a supervisor takes back a correction or a forget. The memory's state
  before that change comes back (a correction's new memory is deleted); the undo is an
  audit entry of its own, and a change is undone once.

Both leave the profile to be rebuilt (``clients_mark_profile_stale``), like every write.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from memories.errors import Conflict, DomainError
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    EventSource,
    Evidence,
    Memory,
    Relation,
    RelationType,
    SourceKind,
    Status,
    Tier,
)
from memories.services.embedding.reembed import memories_embed_now
from memories.services.extraction.heuristic import extract
from memories.services.extraction.normalise import match_form
from memories.services.extraction.time_expressions import (
    Happened,
    looks_ahead,
    resolve_time,
    resolve_when,
)
from memories.services.tenancy.audit import audit
from memories.services.write.core_budget import ensure_core_room
from memories.services.write.lifecycle import state_of
from memories.services.write.records import (
    event_record,
    evidence_link,
    memory_add,
    statement_hash,
    stored_attribute,
)
from memories.services.write.staleness import clients_mark_profile_stale, summaries_retire
from memories.text import clean
from memoryhub.observability import traces

CORRECT = "memory.correct"
FORGET = "memory.forget"
UNDO = "memory.undo"
UNDOABLE = (CORRECT, FORGET)
# A person checked it: more than an extracted statement (0.7 by default), less than proof.
CORRECTION_CONFIDENCE = 0.95
MAX_CONTENT = 2000
MAX_REASON = 300


class ChangedMeanwhile(Conflict):
    code = "changed_meanwhile"


def _required(value: str, field: str, message: str, limit: int) -> str:
    text = clean(value or "")
    if not text:
        raise DomainError(message, fields={field: [message]})
    if len(text) > limit:
        too_long = gettext("At most %(limit)d characters (this is %(length)d).") % {
            "limit": limit,
            "length": len(text),
        }
        raise DomainError(f"{field}: {too_long}", fields={field: [too_long]})
    return text


def _dated(text: str, old: Memory) -> tuple[Happened | None, datetime | None]:
    """When the corrected statement's thing happens, and when it becomes past: the day its
    words name, read as of when the old one was said (a correction restates what was said
    then: "next Thursday" is the Thursday after it); else the old one's. A plan corrected
    keeps its day, and stays coming up."""
    folded = match_form(text)
    time = resolve_time(folded, old.observed_at)
    ahead = old.expires_at is not None or looks_ahead(folded, time)
    occurred = resolve_when(folded, old.observed_at, ahead=ahead)
    if occurred is None:
        kept = (
            Happened(old.occurred_on, old.occurred_precision or "day") if old.occurred_on else None
        )
        return kept, old.expires_at
    expires_at = time.until if old.expires_at is not None or ahead else old.expires_at
    return occurred, expires_at


@transaction.atomic
def memory_correct(
    *, memory: Memory, content: str, reason: str, actor, actor_label: str = ""
) -> Memory:
    """The corrected statement as a new memory that supersedes ``memory``; returns it."""
    with traces.memory_operation("update_memory", store=memory.client_id, record=memory.pk) as span:
        new = _corrected(memory, content, reason, actor, actor_label)
        # ADD-only: the record updated is superseded by a new one.
        span.set_attribute("memoryhub.memory.superseded_by", str(new.pk))
    return new


def _corrected(memory: Memory, content: str, reason: str, actor, actor_label: str) -> Memory:
    text = _required(
        content, "content", gettext("Write the statement as it should be."), MAX_CONTENT
    )
    why = _required(
        reason, "reason", gettext("Say why: the reason goes in the audit trail."), MAX_REASON
    )
    old = Memory.objects.select_for_update().select_related("client__tenant").get(pk=memory.pk)
    client, now = old.client, timezone.now()
    if not old.is_current(now):
        message = (
            gettext(
                "This memory is %(status)s and expired: only what memory holds now can be "
                "corrected. Reload the page to see its current state."
            )
            if old.status in LIVE_STATUSES
            else gettext(
                "This memory is %(status)s: only what memory holds now can be corrected. "
                "Reload the page to see its current state."
            )
        )
        raise ChangedMeanwhile(message % {"status": old.get_status_display().lower()})
    if statement_hash(client.tenant, text) == old.content_hash:
        raise DomainError(
            gettext(
                "The correction says what the memory already says: change the words, or leave it."
            ),
            fields={"content": ["The same statement as the memory's."]},
        )
    label = actor_label or actor.get_username()
    event, _ = event_record(
        client=client,
        content=text,
        source=EventSource.OBSERVATION,
        speaker=label[:100],
        observed_at=now,
        metadata={"corrects": str(old.pk)},
    )
    before = state_of(old)
    reason_line = f"corrected by {label}: {why}"[:300]
    Memory.objects.filter(pk=old.pk).update(
        status=Status.SUPERSEDED, invalidated_at=now, status_reason=reason_line
    )
    summaries_retire(memory_ids=[old.pk])
    value, negated = _value_of(text, old, now)
    occurred, expires_at = _dated(text, old)
    new = memory_add(
        client=client,
        kind=old.kind,
        category=old.category,
        content=text,
        tier=old.tier,  # the old one left the tier: its place, and its core room, are free
        confidence=CORRECTION_CONFIDENCE,
        importance=old.importance,
        observed_at=now,
        expires_at=expires_at,
        occurred=occurred,
        topic=old.topic,
        topic_probability=old.topic_probability,
        topics=old.topics,
        source_kind=SourceKind.MANUAL,
        source_ref=f"user:{actor.pk}" if actor is not None else "",
        attribute=old.attribute,
        attribute_value=value,
        negated=negated,
        tags=old.tags,
        speaker=label,
        subject=old.subject,  # about whom the old one was, not about the person correcting
        metadata={"corrects": str(old.pk)},
    )
    if old.tier_pinned:
        Memory.objects.filter(pk=new.pk).update(tier_pinned=True)
    evidence_link(memory=new, events=[event], action=Evidence.Action.UPDATED, related=old)
    Relation.objects.create(
        tenant_id=client.tenant_id,
        source=new,
        target=old,
        type=RelationType.UPDATES,
        created_by=actor,
        reason=f"correction: {why}"[:300],
    )
    audit(
        tenant_id=client.tenant_id,
        actor=actor,
        actor_label=label,
        action=CORRECT,
        object_type="memory",
        object_id=new.pk,
        reason=why,
        data={"corrects": str(old.pk), "event": str(event.pk), "before": before},
    )
    clients_mark_profile_stale(client_ids=[client.pk])
    transaction.on_commit(lambda: memories_embed_now([new.pk]))
    new.refresh_from_db()
    return new


def _value_of(text: str, old: Memory, now) -> tuple[str, bool]:
    """The value the correction gives the old memory's attribute ("contact_channel" →
    "phone"), read as the write path reads statements; none when it names no value."""
    if not old.attribute:
        return "", False
    for candidate in extract(text, speaker="advisor", source="chat", observed_at=now):
        if stored_attribute(old.client.tenant, candidate.attribute) == old.attribute:
            return candidate.value, candidate.negated
    return "", False


@transaction.atomic
def change_undo(*, memory: Memory, entry_id, actor, actor_label: str = "", reason: str = ""):
    """Undo the correction or forget ``entry_id`` (an audit entry about ``memory``): the
    memory it changed gets back its state before. Returns the restored memory."""
    entry = _undoable(memory, entry_id)
    label = actor_label or actor.get_username()
    why = clean(reason or "")[:MAX_REASON]
    now = timezone.now()
    if entry.action == FORGET:
        restored = Memory.objects.select_for_update().get(pk=entry.object_id)
        if restored.status != Status.DELETED:
            raise ChangedMeanwhile(
                gettext("The memory is %(status)s now, no longer forgotten: nothing was undone.")
                % {"status": restored.get_status_display().lower()}
            )
        deleted = None
    else:
        pair = Memory.objects.select_for_update().in_bulk(
            [entry.object_id, entry.data.get("corrects")]
        )
        deleted, restored = pair[UUID(entry.object_id)], pair[UUID(entry.data["corrects"])]
        if deleted.status not in LIVE_STATUSES or restored.status != Status.SUPERSEDED:
            raise ChangedMeanwhile(
                gettext(
                    "The memories changed since the correction (the correction is %(new)s, "
                    "the corrected memory %(old)s): nothing was undone."
                )
                % {
                    "new": deleted.get_status_display().lower(),
                    "old": restored.get_status_display().lower(),
                }
            )
        Memory.objects.filter(pk=deleted.pk).update(
            status=Status.DELETED,
            invalidated_at=now,
            status_reason=f"correction undone by {label}"[:300],
        )
        summaries_retire(memory_ids=[deleted.pk])
    before = entry.data.get("before") or {"status": Status.ACTIVE}
    status = before.get("status") or Status.ACTIVE
    if status in LIVE_STATUSES and restored.tier == Tier.CORE:
        ensure_core_room(restored.client_id, restored.content, excluding=restored.pk)
    Memory.objects.filter(pk=restored.pk).update(
        status=status,
        status_reason=before.get("status_reason") or "",
        invalidated_at=_moment(before.get("invalidated_at")),
    )
    audit(
        tenant_id=restored.tenant_id,
        actor=actor,
        actor_label=label,
        action=UNDO,
        object_type="memory",
        object_id=restored.pk,
        reason=why,
        data={
            "undoes": str(entry.pk),
            "undone": entry.action,
            "restored": str(restored.pk),
            "deleted": str(deleted.pk) if deleted else None,
        },
    )
    clients_mark_profile_stale(client_ids=[restored.client_id])
    restored.refresh_from_db()
    return restored


def _undoable(memory: Memory, entry_id) -> AuditEntry:
    """The correction or forget ``entry_id`` if it is about ``memory`` (the memory it
    forgot, the correction, or the memory corrected) and not undone yet."""
    entry = (
        AuditEntry.objects.select_for_update()
        .filter(pk=entry_id, tenant_id=memory.tenant_id, object_type="memory")
        .filter(action__in=UNDOABLE)
        .exclude(data__contains={"imported": True})  # an imported say-so, not a change made here
        .first()
    )
    if entry is None or str(memory.pk) not in {entry.object_id, str(entry.data.get("corrects"))}:
        raise DomainError(
            gettext("There is no correction or forget of this memory with that id to undo."),
            fields={"entry": ["Not an undoable change of this memory."]},
        )
    undos = AuditEntry.objects.filter(
        object_type="memory", object_id=restored_by(entry), action=UNDO
    )
    if undos.filter(data__undoes=str(entry.pk)).exists():
        raise ChangedMeanwhile(gettext("This change was already undone."))
    return entry


def restored_by(entry: AuditEntry) -> str:
    """The id of the memory an undo of ``entry`` restores (the undo's audit object): the
    forgotten memory, or the memory a correction superseded."""
    return str(entry.data.get("corrects")) if entry.action == CORRECT else entry.object_id


def _moment(value) -> datetime | None:
    return datetime.fromisoformat(value) if value else None
