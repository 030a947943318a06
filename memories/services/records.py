"""Persisting the records of memory: sessions, events and memories (ADD-only).

The write path (extraction, embedding, dedup, relations) builds on these; they do no
extraction themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.postgres.search import SearchVector
from django.db import transaction
from django.db.models import Value
from django.utils import timezone

from memories.models import Client, Event, Evidence, Memory, Session
from memories.services.text import clean, content_hash, fold


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
    )
    if session is not None:
        Session.objects.filter(pk=session.pk).update(last_event_at=event.observed_at)
    return event, True


def search_vector_for(text: str, language: str):
    return SearchVector(Value(fold(text)), config=Value(language))


@transaction.atomic
def memory_add(
    *,
    client: Client,
    kind: str,
    content: str,
    category: str = "",
    title: str = "",
    tier: str = Memory._meta.get_field("tier").default,
    confidence: float = 0.7,
    importance: float = 0.5,
    observed_at: datetime | None = None,
    expires_at: datetime | None = None,
    session: Session | None = None,
    source_kind: str = "session",
    tags: Iterable[str] = (),
    evidence: Iterable[Event] = (),
) -> Memory:
    """Insert a new memory with its full-text vector and evidence links."""
    text = clean(content)
    language = client.tenant.language
    memory = Memory.objects.create(
        tenant_id=client.tenant_id,
        client=client,
        session=session,
        kind=kind,
        category=category,
        title=clean(title),
        content=text,
        content_hash=content_hash(text),
        language=language,
        search_vector=search_vector_for(f"{title} {text}", language),
        tier=tier,
        confidence=confidence,
        importance=importance,
        observed_at=observed_at or timezone.now(),
        expires_at=expires_at,
        source_kind=source_kind,
        tags=list(tags),
    )
    evidence_link(memory=memory, events=evidence)
    return memory


def evidence_link(*, memory: Memory, events: Iterable[Event], role: str = "extracted") -> int:
    """Link events as evidence (once each) and keep the memory's evidence counter true."""
    rows = [Evidence(memory=memory, event=event, role=role) for event in events]
    if not rows:
        return 0
    Evidence.objects.bulk_create(rows, ignore_conflicts=True)
    total = Evidence.objects.filter(memory=memory).count()
    added = total - memory.evidence_count
    if added:
        Memory.objects.filter(pk=memory.pk).update(evidence_count=total)
        memory.evidence_count = total
    return added
