"""Persisting the records of memory: sessions, events and memories (ADD-only).

The write path (extraction, embedding, dedup, relations) builds on these; they do no
extraction themselves.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import NamedTuple

from django.contrib.postgres.search import SearchVectorField
from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories.crypto import blind, switch
from memories.languages import config_sql, memory_language, text_config
from memories.models import Client, Event, Evidence, Memory, Session, Tenant
from memories.services.extraction.heuristic import speaker_role
from memories.services.extraction.time_expressions import Happened
from memories.services.write.core_budget import ensure_core_room
from memories.text import clean, content_hash, fold


def session_get_or_create(
    *, client: Client, external_ref: str, user=None, agent: str = "", started_at=None
) -> Session:
    session, _ = Session.objects.get_or_create(
        client=client,
        external_ref=external_ref,
        defaults={
            "tenant_id": client.tenant_id,
            "user": user,
            "agent": agent,
            "started_at": started_at or timezone.now(),
        },
    )
    return session


def event_record(
    *,
    client: Client,
    content: str,
    source: str,
    session: Session | None = None,
    speaker: str = "",
    external_id: str = "",
    observed_at: datetime | None = None,
    metadata: dict | None = None,
    entities: list | None = None,
    origin_agent: str = "",
    project_id: str = "",
    task_id: str = "",
    run_id: str = "",
) -> tuple[Event, bool]:
    """Store one event; the same ``external_id`` for the client returns the stored one."""
    if external_id:
        existing = Event.objects.filter(client=client, external_id=external_id).first()
        if existing:
            return existing, False
    event = Event.objects.create(
        tenant_id=client.tenant_id,
        client=client,
        session=session,
        source=source,
        speaker=speaker,
        content=clean(content),
        external_id=external_id,
        observed_at=observed_at or timezone.now(),
        metadata=metadata or {},
        entities=entities or [],
        origin_agent=origin_agent,
        project_id=project_id or (session.project_id if session else ""),
        task_id=task_id or (session.task_id if session else ""),
        run_id=run_id or (session.run_id if session else ""),
    )
    if session is not None:
        Session.objects.filter(pk=session.pk).update(last_event_at=event.observed_at)
    return event, True


def _plain_vector(config: str, words: str, name: str, context: str, client: str) -> str:
    """A plaintext memory's search vector over SQL expressions: its configuration, its
    folded words, the speaker's folded name, the folded turn it answers, its client."""
    return (
        f"memory_search_vector(setweight(to_tsvector({config}::regconfig, {words}), 'A') "
        f"|| setweight(to_tsvector('simple', {name}), 'B') "
        f"|| setweight(to_tsvector({config}::regconfig, {context}), 'D'), {client}::uuid)"
    )


def search_vector_for(
    text: str,
    config: str,
    client_id,
    *,
    tenant: Tenant | None = None,
    speaker: str = "",
    context: str = "",
):
    """The memory's full-text vector, every lexeme scoped by its client (see migration
    0010: a query's postings then hold only this client's memories); for an encrypted
    ``tenant``, its blind index, scoped the same way. The memory's own words weigh A, the
    speaker's name B, the turn it answers D (``memories.services.retrieval`` weighs them).
    ``config``: the memory's text search configuration (``languages.text_config`` of its
    language), for its words and the turn it answers; a name is not stemmed."""
    name = speaker_words(speaker)
    if tenant is not None and switch.encrypted_now(tenant):
        return blind.search_vector(
            text, tenant=tenant, client_id=client_id, config=config, speaker=name, context=context
        )
    return RawSQL(  # noqa: S611 - the statement is ours, every value a parameter
        _plain_vector("%s", "%s", "%s", "%s", "%s"),
        [config, fold(text), fold(name), config, fold(context), client_id],
        output_field=SearchVectorField(),
    )


class Reindexed(NamedTuple):
    """A memory's language and what its search vector is made of (``search_vector_for``)."""

    id: object
    language: str
    config: str
    text: str
    speaker: str
    context: str


def search_vectors_rewrite(*, tenant: Tenant, rows: list[Reindexed]) -> None:
    """Set these memories' languages and rebuild their search vectors in one statement,
    as ``search_vector_for`` builds them; inside ``content_rewrite`` (ADD-only)."""
    if not rows:
        return
    values: dict[str, list] = {"language": [r.language for r in rows]}
    if switch.encrypted_now(tenant):
        vector = "memory_search_vector(v.blind::tsvector, m.client_id)"
        values["blind"] = [
            blind.vector_literal(
                r.text,
                tenant=tenant,
                config=r.config,
                speaker=speaker_words(r.speaker),
                context=r.context,
            )
            for r in rows
        ]
    else:
        vector = _plain_vector("v.config", "v.words", "v.name", "v.context", "m.client_id")
        values["config"] = [r.config for r in rows]
        values["words"] = [fold(r.text) for r in rows]
        values["name"] = [fold(speaker_words(r.speaker)) for r in rows]
        values["context"] = [fold(r.context) for r in rows]
    arrays = ", ".join(["%s::uuid[]"] + ["%s::text[]"] * len(values))
    columns = ", ".join(values)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE memories_memory m SET language = v.language, search_vector = {vector} "  # noqa: S608
            f"FROM unnest({arrays}) AS v(id, {columns}) WHERE m.id = v.id",
            [[r.id for r in rows], *values.values()],
        )


def speaker_words(speaker: str) -> str:
    """The speaker as words a query can name: a person's name, not a role ("user")."""
    return clean(speaker) if speaker_role(speaker) == "person" else ""


def statement_subject(speaker: str, client: Client) -> str:
    """Whom a statement is about: "" for the client (the client speaking, or staff and
    agents speaking of the client); a person speaking in a conversation between people
    speaks of themselves (``subject`` = their name), unless that person is the client."""
    name = speaker_words(speaker)
    if not name:
        return ""
    folded = fold(name)
    if folded in {fold(client.display_name), fold(client.external_ref)}:
        return ""
    return name


def statement_hash(tenant: Tenant, text: str) -> str:
    """The exact-dedup identity of a statement: keyed for an encrypted tenant."""
    return blind.content_hash(tenant, text) if switch.encrypted_now(tenant) else content_hash(text)


def statement_hasher(tenant: Tenant, *, as_loaded: bool = False) -> Callable[[str], str]:
    """``statement_hash`` for many statements of one tenant, its encryption asked once (out
    of a transaction nothing remembers the answer: each call would ask again).

    ``as_loaded``: by the instance's ``encrypted``, without asking the database, for a hint
    that is checked again under the lock (a switch to encryption in between only misses)."""
    if tenant.encrypted if as_loaded else switch.encrypted_now(tenant):
        return functools.partial(blind.content_hash, tenant)
    return content_hash


_ATTRIBUTE_TOKEN = re.compile(r"k[0-9a-f]{20}")


def stored_attribute(tenant: Tenant, attribute: str) -> str:
    """The attribute key as stored: for an encrypted tenant, the part after the colon
    (the client's words, as in ``preference:tobacco``) becomes a keyed token; fixed keys
    (``contact_channel``) are memoryhub's vocabulary and stay. Idempotent."""
    head, colon, tail = attribute.partition(":")
    if not colon or _ATTRIBUTE_TOKEN.fullmatch(tail) or not switch.encrypted_now(tenant):
        return attribute
    return f"{head}:{blind.attribute_token(tenant, tail)}"


def memory_build(
    *,
    client: Client,
    kind: str,
    content: str,
    category: str = "",
    title: str = "",
    tier: str = Memory._meta.get_field("tier").default,
    status: str = Memory._meta.get_field("status").default,
    confidence: float = 0.7,
    importance: float = 0.5,
    observed_at: datetime | None = None,
    expires_at: datetime | None = None,
    session: Session | None = None,
    source_kind: str = "session",
    source_ref: str = "",
    origin_agent: str = "",
    attribute: str = "",
    attribute_value: str = "",
    negated: bool = False,
    tags: Iterable[str] = (),
    metadata: dict | None = None,
    speaker: str = "",
    subject: str = "",
    topic: str = "",
    topic_probability: float = 0.0,
    topics: dict | None = None,
    occurred: Happened | None = None,
    context: str = "",
    evidence_count: int = 0,
    needs_embedding: bool = True,
) -> Memory:
    """A new memory, not yet saved, with its language (detected from its words, else its
    tenant's) and its full-text vector in that language (an expression the INSERT
    computes): ingest inserts a call's memories in one statement, ``memory_add`` one."""
    text = clean(content)
    if tier == "core":  # checked before writing anything, so a refusal breaks no transaction
        ensure_core_room(client.pk, text)
    observed = observed_at or timezone.now()
    words = f"{title} {text}"
    language = memory_language(words, client.tenant.language)
    return Memory(
        tenant_id=client.tenant_id,
        client=client,
        session=session,
        kind=kind,
        category=category,
        title=clean(title),
        content=text,
        content_hash=statement_hash(client.tenant, text),
        language=language,
        attribute=stored_attribute(client.tenant, attribute),
        attribute_value=attribute_value,
        negated=negated,
        speaker=clean(speaker)[:100],
        subject=clean(subject)[:200],
        topic=topic,
        topic_probability=topic_probability,
        topics=topics or {},
        occurred_on=occurred.day if occurred else None,
        occurred_precision=occurred.precision if occurred else "",
        context=clean(context),
        search_vector=search_vector_for(
            words,
            text_config(language),
            client.pk,
            tenant=client.tenant,
            speaker=speaker,
            context=context,
        ),
        tier=tier,
        status=status,
        confidence=confidence,
        importance=importance,
        observed_at=observed,
        last_seen_at=observed,
        expires_at=expires_at,
        source_kind=source_kind,
        source_ref=source_ref,
        origin_agent=origin_agent,
        tags=list(tags),
        metadata=metadata or {},
        evidence_count=evidence_count,
        needs_embedding=needs_embedding and client.tenant.vector_search_enabled,
    )


# Counts each lexeme of these memories once per memory, each client's memories (the row
# "<12 hex>:") and those it has in each text search configuration (the row "<12 hex>:
# <config>": no lexeme holds a space), in one statement; in lexeme order, so two writers
# never deadlock.
_SCOPE = "left(replace(m.client_id::text, '-', ''), 12)"
_LEXEMES_COUNT = (
    "INSERT INTO memories_lexemecount (lexeme, documents) "  # noqa: S608
    "SELECT lexeme, count(*) FROM (SELECT unnest(tsvector_to_array(m.search_vector)) AS lexeme "
    "FROM memories_memory m WHERE m.id = ANY(%s) UNION ALL "
    f"SELECT {_SCOPE} || ':' FROM memories_memory m WHERE m.id = ANY(%s) UNION ALL "
    f"SELECT {_SCOPE} || ': ' || {config_sql('m.language')} FROM memories_memory m "
    "WHERE m.id = ANY(%s)) found GROUP BY lexeme ORDER BY lexeme "
    "ON CONFLICT (lexeme) DO UPDATE SET documents = memories_lexemecount.documents "
    "+ excluded.documents"
)


def lexemes_count(memory_ids: list) -> None:
    """Count new memories' words for ranking (``LexemeCount``): after they are inserted,
    in the same transaction."""
    if memory_ids:
        with connection.cursor() as cursor:
            cursor.execute(_LEXEMES_COUNT, [list(memory_ids)] * 3)


def client_lexemes_forget(client_ids) -> None:
    """Drop clients' word counts (erasure; or before counting them anew)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM memories_lexemecount WHERE split_part(lexeme, ':', 1) = ANY("
            "SELECT left(replace(c::text, '-', ''), 12) FROM unnest(%s::uuid[]) AS c)",
            [list(client_ids)],
        )


def client_lexemes_recount(client_ids) -> None:
    """Count clients' words anew (after their search vectors were rewritten, e.g. sealed)."""
    ids = list(client_ids)
    if not ids:
        return
    client_lexemes_forget(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(id) FROM memories_memory WHERE client_id = ANY(%s::uuid[])", [ids]
        )
        lexemes_count(cursor.fetchone()[0] or [])


def memory_add(
    *,
    client: Client,
    evidence: Iterable[Event] = (),
    evidence_action: str = "added",
    evidence_role: str = Evidence.Role.EXTRACTED,
    **fields,
) -> Memory:
    """Insert a new memory (``memory_build``'s fields) with its full-text vector and
    evidence links (``evidence_role``: extracted from an event, or consolidated by a job)."""
    events = list({event.pk: event for event in evidence}.values())
    memory = memory_build(client=client, evidence_count=len(events), **fields)
    with transaction.atomic(savepoint=False):  # inside a caller's transaction: no savepoint
        memory.save(force_insert=True)
        lexemes_count([memory.pk])
        Evidence.objects.bulk_create(
            [
                Evidence(memory=memory, event=event, role=evidence_role, action=evidence_action)
                for event in events
            ]
        )
    return memory


def evidence_link(
    *,
    memory: Memory,
    events: Iterable[Event],
    role: str = "extracted",
    action: str = "",
    related: Memory | None = None,
) -> int:
    """Link events as evidence (once each) and keep the memory's evidence counter true."""
    rows = [
        Evidence(memory=memory, event=event, role=role, action=action, related=related)
        for event in events
    ]
    if not rows:
        return 0
    Evidence.objects.bulk_create(rows, ignore_conflicts=True)
    total = Evidence.objects.filter(memory=memory).count()
    added = total - memory.evidence_count
    if added:
        Memory.objects.filter(pk=memory.pk).update(evidence_count=total)
        memory.evidence_count = total
    return added
