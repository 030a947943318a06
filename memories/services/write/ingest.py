"""The write path: event in → normalise → extract → embed → dedup → relate → persist.

One transaction per call (a batch is all-or-nothing). The expensive, side-effect-free
steps (extraction, embedding) run before it; the decisions that depend on what the
client's memory already holds run inside it, under a per-client advisory lock, so
concurrent writers to one client queue up instead of creating duplicates. Content is
never updated: a change is a new memory that updates (supersedes) the old one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import OperationalError, connection, transaction
from django.utils import timezone

from memories import db, permissions
from memories.errors import IdempotencyConflict
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Client,
    Event,
    Evidence,
    Kind,
    Memory,
    Relation,
    Tenant,
)
from memories.services.extraction.heuristic import speaker_role
from memories.services.extraction.normalise import spot_entities
from memories.services.signals import conflicts_found
from memories.services.tenancy.members import client_assign_advisor
from memories.services.topics.people import names_called
from memories.services.webhooks import events as webhook_events
from memories.services.write.items import items_supersede
from memories.services.write.outcomes import Outcome, OutcomeWriter, stored_outcomes
from memories.services.write.prepare import EventInput, Prepared, add_contexts, prepare_all
from memories.services.write.records import (
    speaker_words,
    statement_hasher,
    stored_attribute,
)
from memories.services.write.relate import LiveIndex, Neighbours, marriage, versions_by_topic
from memories.services.write.sessions import new_events_by_session, sessions_spanning
from memories.services.write.staleness import clients_mark_profile_stale, summaries_retire
from memories.services.write.topics import topics_read
from memories.services.write.vectors import (
    Embedding,
    embedding_started,
    message_vectors_store,
)
from memoryhub.observability import metrics, traces

logger = logging.getLogger(__name__)

# A call whose transaction lost a race with another (a deadlock PostgreSQL broke by rolling
# it back, a serialization failure, a lock timeout) stored nothing: it is decided again from
# the clients' rows, up to this many attempts in all, before the caller is told.
ATTEMPTS = 3


@dataclass(frozen=True)
class IngestResult:
    event: Event
    created: bool
    outcomes: list[Outcome]


def events_ingest(
    *, user, tenant: Tenant, items: list[EventInput], actor_label: str = ""
) -> list[IngestResult]:
    """Store ``items`` and what they teach, in order. All or nothing."""
    with traces.memory_operation("create_memory") as span:
        results = _events_ingest(user, tenant, items, actor_label)
        if span.is_recording():
            written = [
                outcome.memory
                for result in results
                for outcome in result.outcomes
                if outcome.action != Evidence.Action.DEDUPLICATED
            ]
            traces.record_written(
                span,
                tenant=tenant,
                memories=written,
                stores={result.event.client_id for result in results},
                events=len(results),
            )
    return results


def _events_ingest(user, tenant: Tenant, items: list[EventInput], actor_label: str):
    # Refuse before extracting and embedding: a key that may not write costs no CPU.
    found = permissions.clients_for_write(user, tenant, {item.client for item in items})
    now = timezone.now()
    prepared = prepare_all(items, now, tenant=tenant)
    add_contexts(tenant, prepared)
    # A tenant with vector search off stores no vectors at all (docs/privacy.md).
    pending = None
    if tenant.vector_search_enabled:
        pending = embedding_started(tenant, prepared, known=_said_before(tenant, found, prepared))
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return _decide_and_store(user, tenant, found, prepared, pending, actor_label)
        except OperationalError as exc:
            # Inside a caller's transaction the whole of it is lost: that caller decides.
            if attempt == ATTEMPTS or connection.in_atomic_block or not db.lost_a_race(exc):
                raise
            state = db.sqlstate(exc)
            logger.warning("ingest lost a race (%s: %s); deciding it again", state, exc)
            metrics.ingest_retried(state)
            # The rolled-back attempt changed the clients it loaded (the speakers heard):
            # the next one starts from their rows as stored.
            found = permissions.clients_for_write(user, tenant, set(found))
    raise AssertionError("unreachable: the last attempt returns or raises")


def _decide_and_store(
    user, tenant: Tenant, found, prepared: list[Prepared], pending: Embedding | None, actor_label
) -> list[IngestResult]:
    with transaction.atomic():
        clients = _resolve_clients(user, tenant, found)
        _lock_clients(clients.values())
        stored = _store_events(prepared, clients, user, tenant)
        _audit_withheld(prepared, stored, tenant, actor_label or str(user))
        _note_speakers(prepared, clients)
        # Needed from here on: a small call's vectors were computed meanwhile.
        space = pending.space(prepared) if pending else None
        # What each statement is about, once its vector is known; small talk goes.
        topics_read(prepared, space, clients)
        hash_of = statement_hasher(tenant)
        hashes = [[hash_of(c.content) for c in p.candidates] for p in prepared]
        candidates = [c for p in prepared for c in p.candidates]
        index = LiveIndex.load(
            client_ids=[c.pk for c in clients.values()],
            hashes=[h for row in hashes for h in row],
            attributes=[stored_attribute(tenant, c.attribute) for c in candidates],
            marriage=any(
                marriage(c.attribute, c.value, c.negated, c.tags) is not None for c in candidates
            ),
            topics=[c.topic for c in candidates if versions_by_topic(c.topic, c.topic_probability)],
        )
        keys = _neighbour_keys(prepared, clients, hashes, index)
        run = OutcomeWriter(
            user=user,
            actor_label=actor_label or str(user),
            space=space,
            neighbours=Neighbours.load(
                space=space,
                wanted=[
                    (n, clients[prepared[i].item.client].pk, vector)
                    for (i, j), n in keys.items()
                    if (vector := prepared[i].vectors[j]) is not None
                ],
            ),
            index=index,
        )
        results = []
        for i, (p, (event, created)) in enumerate(zip(prepared, stored, strict=True)):
            if not created:
                results.append(IngestResult(event, False, stored_outcomes(event)))
                continue
            client = clients[p.item.client]
            run.contexts[event.pk] = p.context
            outcomes = [
                run.apply(
                    candidate, vector, client=client, event=event, item=p.item, key=keys.get((i, j))
                )
                for j, (candidate, vector) in enumerate(zip(p.candidates, p.vectors, strict=True))
            ]
            results.append(IngestResult(event, True, outcomes))
        run.flush()
        items_supersede(results=results, actor=user, actor_label=actor_label or str(user))
        message_vectors_store(
            prepared, [event if created else None for event, created in stored], space
        )
        summaries_retire(memory_ids=run.superseded)
        actions = [o.action for r in results if r.created for o in r.outcomes]
        transaction.on_commit(lambda: metrics.ingest_counted(actions))
        if run.conflicts:
            _open_conflict_reviews(list(run.conflicts))
        # Marked last, so the client row stays locked only until commit; queues one
        # refresh per client however many events arrive before it runs.
        clients_mark_profile_stale(
            client_ids={r.event.client_id for r in results if r.created and r.outcomes}
        )
        webhook_events.memories_stored(tenant=tenant, results=results)
    return results


def event_ingest(*, user, tenant: Tenant, item: EventInput, actor_label: str = "") -> IngestResult:
    try:
        return events_ingest(user=user, tenant=tenant, items=[item], actor_label=actor_label)[0]
    except IdempotencyConflict as exc:  # one event: its own field, not the batch's
        raise IdempotencyConflict(exc.message, fields={"external_id": [exc.message]}) from None


def _neighbour_keys(prepared, clients, hashes, index: LiveIndex) -> dict[tuple, int]:
    """(event, statement) → key, for the statements whose nearest memories will be asked:
    typed ones with a vector, unless their very words are already on record (stored, or
    earlier in this call): the exact text decides those before any neighbour counts."""
    keys: dict[tuple, int] = {}
    seen: set[tuple] = set()
    for i, p in enumerate(prepared):
        client_id = clients[p.item.client].pk
        for j, candidate in enumerate(p.candidates):
            said = (client_id, hashes[i][j])
            known = said in seen or bool(index.exact(*said))
            seen.add(said)
            if candidate.kind != Kind.EPISODIC and p.vectors[j] is not None and not known:
                keys[(i, j)] = len(keys)
    return keys


def _said_before(tenant: Tenant, clients: dict, prepared: list[Prepared]) -> set[tuple]:
    """(client reference, statement) pairs a live memory already says word for word: they
    are restated, and need no vector (one query; read again under the lock to decide)."""
    ids = {ref: client.pk for ref, client in clients.items() if client is not None}
    said = {
        (p.item.client, c.content) for p in prepared for c in p.candidates if p.item.client in ids
    }
    if not said:
        return set()
    hash_of = statement_hasher(tenant, as_loaded=True)
    hashes = {(ids[ref], hash_of(text)): (ref, text) for ref, text in said}
    stored = Memory.objects.filter(
        client_id__in=set(ids.values()),
        content_hash__in={h for _, h in hashes},
        status__in=LIVE_STATUSES,
    ).values_list("client_id", "content_hash")
    return {hashes[key] for key in stored if key in hashes}


def _resolve_clients(user, tenant: Tenant, found: dict[str, Client | None]) -> dict[str, Client]:
    """The clients of the call, those missing created (``found``: what
    ``permissions.clients_for_write`` answered for each reference)."""
    clients = {}
    for ref, client in found.items():
        if client is None:
            client, created = Client.objects.get_or_create(tenant=tenant, external_ref=ref)
            if created and permissions.role_in(user, tenant) == "ADVISOR":
                client_assign_advisor(client=client, advisor=user, actor=user)
        clients[ref] = client
    return clients


# A client's known speakers, and the names they are called by, stop growing here (a
# conversation has a handful).
MAX_SPEAKERS = 50
MAX_NAMES = 10


def _note_speakers(prepared: list[Prepared], clients: dict[str, Client]) -> None:
    """Add the people heard (by name, not roles) to their client's ``speakers``, so search
    can tell a name in a query from a topic word; and the names an advisor greets the
    client by ("Buongiorno Lorenza") to its ``names``, so a question that names the client
    asks about the client. One UPDATE per client with something new."""
    heard: dict[str, dict[str, None]] = {}
    called: dict[str, dict[str, None]] = {}
    for p in prepared:
        if name := speaker_words(p.item.speaker):
            heard.setdefault(p.item.client, {})[name] = None
        if speaker_role(p.item.speaker) == "staff":
            for name in names_called(p.content):
                called.setdefault(p.item.client, {})[name] = None
    for ref in heard.keys() | called.keys():
        client = clients[ref]
        known = {s.casefold() for s in client.speakers}
        speakers = [n for n in heard.get(ref, {}) if n.casefold() not in known]
        names = [n for n in called.get(ref, {}) if n not in client.names]
        changed: dict[str, list[str]] = {}
        if speakers and len(client.speakers) < MAX_SPEAKERS:
            client.speakers = changed["speakers"] = [*client.speakers, *speakers][:MAX_SPEAKERS]
        if names and len(client.names) < MAX_NAMES:
            client.names = changed["names"] = [*client.names, *names][:MAX_NAMES]
        if changed:
            Client.objects.filter(pk=client.pk).update(**changed)


def _lock_clients(clients) -> None:
    """Serialise writers per client, in a fixed order so two batches never deadlock."""
    with connection.cursor() as cursor:
        for client_id in sorted(str(c.pk) for c in clients):
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [client_id])


def _store_events(prepared: list[Prepared], clients: dict[str, Client], user, tenant: Tenant):
    """Insert the new events in one statement; an already stored external_id is a replay."""
    refs = {(clients[p.item.client].pk, p.item.external_id) for p in prepared if p.item.external_id}
    known: dict[tuple, Event] = {}
    if refs:
        for event in Event.objects.filter(
            client_id__in={c for c, _ in refs}, external_id__in={e for _, e in refs}
        ).select_related("client", "session"):
            known[(event.client_id, event.external_id)] = event
    _refuse_reused_ids(prepared, clients, known)
    sessions = sessions_spanning(new_events_by_session(prepared, clients, known), clients, user)
    stored, new = [], []
    for p in prepared:
        item, client = p.item, clients[p.item.client]
        key = (client.pk, item.external_id)
        if item.external_id and key in known:
            stored.append((known[key], False))
            continue
        session = sessions.get((client.pk, item.session)) if item.session else None
        event = Event(
            tenant_id=client.tenant_id,
            client=client,
            session=session,
            source=item.source,
            speaker=item.speaker,
            content=p.event_text(tenant),
            external_id=item.external_id,
            observed_at=p.observed_at,
            metadata=item.metadata,
            entities=spot_entities(p.content),
            origin_agent=item.agent,
            project_id=item.project_id,
            task_id=item.task_id,
            run_id=item.run_id,
            item_key=item.item_key,
        )
        if item.external_id:
            known[key] = event
        new.append(event)
        stored.append((event, True))
    Event.objects.bulk_create(new)
    return stored


def _audit_withheld(prepared: list[Prepared], stored, tenant: Tenant, actor_label: str) -> None:
    """One audit entry per new event whose secrets were withheld: which kinds, never what."""
    entries = [
        AuditEntry(
            tenant=tenant,
            actor_label=actor_label,
            action="event.secrets_withheld",
            object_type="event",
            object_id=str(event.pk),
            data={"kinds": list(p.withheld), "kept_sealed": p.event_text(tenant) != p.content},
        )
        for p, (event, created) in zip(prepared, stored, strict=True)
        if created and p.withheld
    ]
    if entries:
        AuditEntry.objects.bulk_create(entries)


def _refuse_reused_ids(prepared: list[Prepared], clients: dict[str, Client], known) -> None:
    """An ``external_id`` posted again replays its event only with the same content (as
    stored: cleaned); with other content it is a mistake to say, not new text to drop. The
    first such event refuses the whole call (``events[i]``, as a batch names its events)."""
    for i, p in enumerate(prepared):
        stored = known.get((clients[p.item.client].pk, p.item.external_id))
        if p.item.external_id and stored is not None and stored.content not in (p.content, p.said):
            message = (
                f"external_id {p.item.external_id!r} already names an event of client "
                f"{p.item.client!r} with other content: an external_id names one event, "
                "so post new content under a new one (the same content again is a replay)."
            )
            raise IdempotencyConflict(message, fields={f"events[{i}].external_id": [message]})


def _open_conflict_reviews(relation_ids: list[int]) -> None:
    """The call's conflicts, told in its own transaction (``curation`` opens their review
    items): a person sees the conflict in the queue as soon as the event is stored, worker
    or not, and an agent reading the context meanwhile is told the answer is disputed."""
    conflicts_found.send(sender=Relation, relation_ids=relation_ids)
