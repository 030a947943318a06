"""Episode summaries (seed 003 phases 2 and 4): once a session has gone quiet, its events
become one structured episodic memory: topic, intent, outcome, key facts. Heuristic by
default (no model, no cost); ``SUMMARIZER=llm`` asks the configured OpenAI-compatible
model and falls back to the heuristic on any failure.

The summary rests on the session's events (evidence) and ``derives`` from the memories
extracted from them; those stay (for many statements an episode is the only record: they
go to the archival tier when cold, never expire for being raw). A session that receives
events after its summary is summarised again; the new summary ``updates`` (supersedes) the
old one.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    Category,
    Event,
    Evidence,
    Kind,
    Memory,
    Relation,
    RelationType,
    Session,
    SourceKind,
    Status,
)
from memories.services.embedding.reembed import memories_embed_now
from memories.services.extraction.heuristic import ASSISTANT_SPEAKERS
from memories.services.extraction.normalise import match_form, split_sentences
from memories.services.extraction.patterns import FORMULAS
from memories.services.extraction.vocabulary import (
    GRAMMAR_WORDS,
    NEGATIONS,
    TEMPORAL_WORDS,
    WEAK_WORDS,
)
from memories.services.jobs import summaries_llm as llm_summary
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry
from memories.services.write.records import memory_add
from memories.services.write.staleness import SUMMARY_SOURCE_REF, clients_mark_profile_stale
from memories.text import fold

logger = logging.getLogger(__name__)
SOURCE_REF = SUMMARY_SOURCE_REF
_REQUEST = (
    "can you",
    "could you",
    "i need",
    "i want",
    "i'd like",
    "i would like",
    "please",
    "puoi",
    "potrebbe",
    "vorrei",
    "ho bisogno",
    "puedes",
    "podría",
    "quiero",
    "necesito",
    "quisiera",
)
_WORD = re.compile(r"[^\W\d_]+")
# How often the client says a word for it to be part of a session's topic.
TOPIC_REPEATS = 2
_TOPIC_SKIP = GRAMMAR_WORDS | WEAK_WORDS | TEMPORAL_WORDS | frozenset(NEGATIONS)


def episodes_summarize(*, tenant_id=None, counts: JobCounts) -> None:
    now = timezone.now()
    due = _due(now)
    if tenant_id is not None:
        due = due.filter(tenant_id=tenant_id)
    candidates = list(
        due.annotate(n=Count("events"))
        .filter(n__gte=int(setting("SUMMARY_MIN_EVENTS")))
        .order_by("last_event_at", "pk")
        .values_list("pk", flat=True)
    )
    size = max(1, int(setting("JOB_BATCH_SIZE")) // 50)
    for start in range(0, len(candidates), size):
        created = []
        with transaction.atomic():
            batch = candidates[start : start + size]
            # Checked again under the lock: another worker may have summarised them.
            sessions = list(
                _due(now).filter(pk__in=batch).select_for_update(skip_locked=True).order_by("pk")
            )
            counts.add("sessions_busy", len(batch) - len(sessions))
            for session in sessions:
                created.append(_summarize(session, now, counts))
            Session.objects.filter(pk__in=[s.pk for s in sessions]).update(summarized_at=now)
            clients_mark_profile_stale(client_ids={s.client_id for s in sessions})
        memories_embed_now(created)


def _due(now):
    quiet = now - timedelta(minutes=float(setting("SUMMARY_IDLE_MINUTES")))
    return Session.objects.filter(last_event_at__lte=quiet).filter(
        Q(summarized_at__isnull=True) | Q(summarized_at__lt=F("last_event_at"))
    )


def _summarize(session: Session, now, counts: JobCounts):
    session = Session.objects.select_related("client__tenant").get(pk=session.pk)
    events = list(Event.objects.filter(session=session).order_by("observed_at", "pk"))
    facts = list(
        Memory.objects.filter(evidence__event__session=session, status__in=LIVE_STATUSES)
        .exclude(source_ref=SOURCE_REF)
        .distinct()
        .order_by("-importance", "created_at", "pk")
    )
    summary, made_by = None, "heuristic"
    if setting("SUMMARIZER") == "llm":
        try:
            summary = llm_summary.summarize([(e.speaker, e.content) for e in events])
            made_by = "llm"
        except llm_summary.LLMSummaryError as exc:
            logger.warning("summarising session %s heuristically: %s", session.pk, exc)
    summary = summary or heuristic_summary(events, facts)
    counts.add(f"summarized_{made_by}")
    previous = list(
        Memory.objects.filter(session=session, source_ref=SOURCE_REF, status__in=LIVE_STATUSES)
    )
    memory = memory_add(
        client=session.client,
        session=session,
        kind=Kind.EPISODIC,
        category=Category.EVENT,
        title=f"Summary of session {session.external_ref}"[:200],
        content=render(summary),
        confidence=0.8,
        importance=0.5,
        observed_at=events[-1].observed_at,
        source_kind=SourceKind.JOB,
        source_ref=SOURCE_REF,
        metadata={"summary": summary, "summarizer": made_by, "events": len(events)},
        evidence=events,
        evidence_role=Evidence.Role.CONSOLIDATED,
        evidence_action="",
    )
    tenant_id = session.tenant_id
    relations = [
        Relation(tenant_id=tenant_id, source=memory, target=fact, type=RelationType.DERIVES)
        for fact in facts
    ] + [
        Relation(tenant_id=tenant_id, source=memory, target=old, type=RelationType.UPDATES)
        for old in previous
    ]
    Relation.objects.bulk_create(relations, ignore_conflicts=True)
    if previous:
        Memory.objects.filter(pk__in=[m.pk for m in previous]).update(
            status=Status.SUPERSEDED, invalidated_at=now, status_reason=f"updated by {memory.pk}"
        )
        counts.add("superseded", len(previous))
    audit_entry(
        tenant_id=tenant_id,
        actor_label="job:summarize_episodes",
        action="memory.summarize",
        object_type="memory",
        object_id=memory.pk,
        data={"session": str(session.pk), "events": len(events), "by": made_by},
    ).save()
    return memory.pk


def heuristic_summary(events: list[Event], facts: list[Memory]) -> dict:
    """Topic: the names and the words the client repeats most; intent: the client's first request
    or question; outcome: the last thing said that says something ("Certainly!" does not);
    key facts: the most important memories the session taught (episodes excluded)."""
    client_lines = [e for e in events if fold(e.speaker or "user") not in ASSISTANT_SPEAKERS]
    names = [
        entity["text"]
        for e in events
        for entity in e.entities
        if entity.get("type") in ("person", "organisation")
    ]
    words = Counter(
        token
        for e in client_lines or events
        for token in _WORD.findall(FORMULAS.sub(" ", match_form(e.content)))
        if len(token) > 3 and token not in _TOPIC_SKIP
    )
    topic = list(dict.fromkeys(names))[:2]
    # A word said once names nothing the session was about ("rather", "meet"): a topic is
    # a name, or a word the client came back to; with neither, the line is left out.
    for word, said in words.most_common():
        if len(topic) >= 3 or said < TOPIC_REPEATS:
            break
        if word not in {fold(t) for t in topic}:
            topic.append(word)
    return {
        "topic": ", ".join(topic),
        "intent": _intent(client_lines or events),
        "outcome": _outcome(events),
        "key_facts": [f.content for f in facts if f.kind != Kind.EPISODIC][:5],
    }


def _says_something(sentence: str) -> bool:
    """Two words that are neither grammar nor chat ("Hi, how are you?", "Certainly!" are not)."""
    return sum(1 for w in _WORD.findall(fold(sentence)) if len(w) > 3 and w not in _TOPIC_SKIP) >= 2


def _intent(events: list[Event]) -> str:
    """The first request or question that says something ("Hi, how are you?" does not)."""
    sentences = [s for e in events for s in split_sentences(e.content) if _says_something(s)]
    for sentence in sentences:
        folded = fold(sentence)
        if sentence.rstrip().endswith("?") or any(cue in folded for cue in _REQUEST):
            return sentence[:300]
    return sentences[0][:300] if sentences else ""


def _outcome(events: list[Event]) -> str:
    """The first sentence that says something of the last event that has one: an answer that
    opens with "Certainly!" is summed up by what follows, a closing "Thanks, bye!" by what
    came before it."""
    for event in reversed(events):
        for sentence in split_sentences(event.content):
            if _says_something(sentence):
                return sentence[:300]
    return ""


def render(summary: dict) -> str:
    parts = [f"Topic: {summary['topic']}." if summary["topic"] else ""]
    for label, key in (("Intent", "intent"), ("Outcome", "outcome")):
        if text := summary[key].strip():
            parts.append(f"{label}: {text if text[-1] in '.!?' else text + '.'}")
    if summary["key_facts"]:
        facts = "; ".join(fact.rstrip(".") for fact in summary["key_facts"])
        parts.append(f"Key facts: {facts}.")
    return " ".join(p for p in parts if p)[:2000]
