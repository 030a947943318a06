"""What each event of a call says, before anything is stored: its clean text, its
observation time, its typed candidates (the cue tables' or the LLM's), its episodic record,
and the turn before it in its session. Side-effect free but for one read (the turns before).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models.expressions import RawSQL

from memories.conf import setting
from memories.models import Event, Tenant
from memories.services.extraction import heuristic as extraction
from memories.services.extraction import llm as llm_extraction
from memories.services.extraction.episodes import episodes, told
from memories.services.extraction.normalise import prose
from memories.services.secrets import may_answer, only_a_secret, withheld
from memories.text import clean

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EventInput:
    client: str
    content: str
    source: str = "chat"
    session: str = ""
    speaker: str = ""
    observed_at: datetime | None = None
    external_id: str = ""
    metadata: dict = field(default_factory=dict)
    agent: str = ""
    project_id: str = ""
    task_id: str = ""
    run_id: str = ""
    extract_from_assistant: bool = False
    item_key: str = ""


@dataclass
class Prepared:
    item: EventInput
    content: str
    observed_at: datetime
    candidates: list[extraction.Candidate]
    vectors: list[list[float] | None]
    context: str = ""  # the turn before it in its session: what it answers
    # The question it answers: the end of the turn before, when another speaker asked it
    # ("¿A qué se dedica usted?" before "Soy fisioterapeuta"); its message is read with it.
    asked: str = ""
    # The vector of the whole message (``message``), when it yields memories and was embedded.
    message_vector: list[float] | None = None
    # What was said, before its secrets were withheld (``content`` has the placeholders),
    # and the kinds withheld: memoryhub.services.secrets.
    said: str = ""
    withheld: tuple[str, ...] = ()
    # The turn before it in its session as stored (speaker, content), when it was read to
    # check whether this event answers a question for a secret; None when not read.
    before: tuple[str, str] | None = None

    @property
    def message(self) -> str:
        """What the message's vector reads (``message_text``). "" when it yields no memory
        (nothing would be read in its light), or one that keeps most of it
        (``MESSAGE_KEPT``): that memory's vector is the message's (``vector_of_message``),
        and the call embeds one text fewer."""
        if not self.candidates or self.own_vector_suffices:
            return ""
        return message_text(f"{self.asked} {self.content}" if self.asked else self.content)

    @property
    def own_vector_suffices(self) -> bool:
        """The message yields one statement that keeps most of what it says, and answers
        no question (an answer is read with what it answers)."""
        return (
            not self.asked
            and len(self.candidates) == 1
            and len(self.candidates[0].content) >= MESSAGE_KEPT * len(self.content)
        )

    @property
    def vector_of_message(self) -> list[float] | None:
        """The message's vector once embedded: its own, or its one statement's."""
        if self.message_vector is not None:
            return self.message_vector
        return self.vectors[0] if self.candidates and self.own_vector_suffices else None

    def event_text(self, tenant: Tenant) -> str:
        """What the event stores: what was said only when the tenant keeps secrets sealed."""
        if self.withheld and tenant.encrypted and tenant.secrets_kept_sealed:
            return self.said
        return self.content


# Of the turn before, what a statement is searched with (its end: usually the question).
CONTEXT_CHARS = 300
# Of a message, what its vector reads: about the 512 tokens multilingual-e5-small reads.
MESSAGE_CHARS = 2000
# A message whose one statement keeps this share of it or more is read as that statement
# (docs/decisions/0046: half the messages of both benchmarks, half the extra embedding, for
# 0.003 of recall@10).
MESSAGE_KEPT = 0.8


def message_text(content: str) -> str:
    """What a message's vector reads: its prose (the listings pasted into it are code, not
    what it is about, and cost a small model twice the words), as far as a small model
    reads (``MESSAGE_CHARS``)."""
    return prose(content)[:MESSAGE_CHARS]


def prepare_all(
    items: list[EventInput], now: datetime, *, tenant: Tenant | None = None
) -> list[Prepared]:
    """Each event's typed candidates (the cue tables', or the LLM's), then its episodic
    record: what it tells that no typed candidate holds (``extraction.episodes``). With
    ``tenant``, an event that could answer a question for a secret is read with the turn
    before it, stored or in this call ("What's your PIN?" then "4471")."""
    said = [clean(item.content) for item in items]
    stored = _stored_turns_before(tenant, items, said, now) if tenant is not None else {}
    prepared: list[Prepared] = []
    last: dict[tuple[str, str], str] = {}  # each session's turn before, as withheld
    for item, text in zip(items, said, strict=True):
        key = (item.client, item.session)
        before = stored.get(key) if item.session and key not in last else None
        asked = last.get(key) or (before[1] if before else "")
        # Before anything reads it: extraction, the LLM.
        content, kinds = withheld(text, asked=asked if item.session else "")
        prepared.append(
            Prepared(
                item,
                content,
                item.observed_at or now,
                [],
                [],
                said=text,
                withheld=kinds,
                before=before,
            )
        )
        if item.session:
            last[key] = content
    read = {
        id(p): extraction.read(
            p.content,
            speaker=p.item.speaker or "user",
            source=p.item.source,
            observed_at=p.observed_at,
            include_assistant=_include_assistant(p.item),
        )
        for p in prepared
    }
    typed: dict[int, list[extraction.Candidate]] | None = None
    if setting("EXTRACTOR") == "llm":
        eligible = [p for p in prepared if _may_extract(p.item)]
        try:
            found = llm_extraction.extract_batch(
                [(p.content, p.item.speaker, p.item.source, p.observed_at) for p in eligible]
            )
        except llm_extraction.LLMExtractionError as exc:
            logger.warning("falling back to the heuristic extractor: %s", exc)
        else:
            typed = {id(p): candidates for p, candidates in zip(eligible, found, strict=True)}
    for p in prepared:
        language, sentences = read[id(p)]
        if p.withheld:  # a sentence that gave a secret and said nothing else is no memory
            sentences = [s for s in sentences if not only_a_secret(s.text)]
        if typed is not None:
            # The LLM's memories are paraphrases: every informative sentence stays on record.
            p.candidates = [c for c in typed.get(id(p), []) if not only_a_secret(c.content)]
            sentences = [replace(s, candidates=()) for s in sentences]
        else:
            sentences = told(sentences)
            p.candidates = [c for s in sentences for c in s.candidates]
        if p.item.source != "tool":  # tool output is operational: it passes
            p.candidates += episodes(
                sentences,
                language=language,
                observed_at=p.observed_at,
                own_questions=extraction.speaker_role(p.item.speaker) != "staff",
            )
        p.vectors = [None] * len(p.candidates)
    return prepared


def add_contexts(tenant: Tenant, prepared: list[Prepared]) -> None:
    """Each event's context: the turn before it in its session, from this batch or, for
    the first of a session, the latest one stored before it (one query for all, unless
    ``prepare_all`` read it already)."""
    first: dict[tuple[str, str], datetime] = {}
    read: dict[tuple[str, str], tuple[str, str]] = {}
    seen: set[tuple[str, str]] = set()
    for p in prepared:
        if p.item.session and (key := (p.item.client, p.item.session)) not in seen:
            seen.add(key)
            if p.before is not None:
                read[key] = p.before
            elif p.candidates:  # a context is kept with memories only: none, no query
                first[key] = p.observed_at
    last = {**_turns_before(tenant, first), **read}
    for p in prepared:
        if p.item.session:
            key = (p.item.client, p.item.session)
            speaker, before = last.get(key, ("", ""))
            p.context = before[-CONTEXT_CHARS:]
            if speaker.casefold() != p.item.speaker.casefold():
                p.asked = question_asked(before)
            last[key] = (p.item.speaker, p.content)


def question_asked(turn: str) -> str:
    """The question a turn ends with (from the sentence that asks it), or "": what the next
    speaker's message answers."""
    if "?" not in turn[-CONTEXT_CHARS:]:
        return ""
    end = turn.rstrip()
    start = max(end.rfind(mark, 0, len(end) - 1) for mark in ".!\n")
    question = end[start + 1 :].strip()
    return question[-CONTEXT_CHARS:] if question.endswith("?") else ""


def _stored_turns_before(
    tenant: Tenant, items: list[EventInput], said: list[str], now: datetime
) -> dict[tuple[str, str], tuple[str, str]]:
    """The turn stored before the first event of each session in this call, for the
    sessions whose first event could answer a question for a secret (most do not: no
    query)."""
    first: dict[tuple[str, str], datetime] = {}
    seen: set[tuple[str, str]] = set()
    for item, text in zip(items, said, strict=True):
        if item.session and (key := (item.client, item.session)) not in seen:
            seen.add(key)
            if may_answer(text):
                first[key] = item.observed_at or now
    # A session with no turn before is known to have none: add_contexts asks no more.
    return {key: ("", "") for key in first} | _turns_before(tenant, first)


# The latest stored event of each (client reference, session reference) up to a time.
_TURN_BEFORE = (
    "SELECT (SELECT e.id FROM memories_session s "
    "JOIN memories_client c ON c.id = s.client_id JOIN memories_event e ON e.session_id = s.id "
    "WHERE c.tenant_id = %s AND c.external_ref = q.client_ref AND s.external_ref = q.session_ref "
    "AND e.observed_at <= q.at ORDER BY e.observed_at DESC, e.received_at DESC LIMIT 1) "
    "FROM unnest(%s::text[], %s::text[], %s::timestamptz[]) AS q(client_ref, session_ref, at)"
)


def _turns_before(tenant: Tenant, first: dict[tuple[str, str], datetime]) -> dict:
    if not first:
        return {}
    (clients, sessions), times = zip(*first, strict=True), list(first.values())
    # One round trip, through the ORM so that an encrypted tenant's content is opened.
    found = Event.objects.filter(
        pk__in=RawSQL(_TURN_BEFORE, [tenant.pk, list(clients), list(sessions), times])  # noqa: S611
    ).values_list("client__external_ref", "session__external_ref", "speaker", "content")
    # A tenant that keeps secrets sealed in its events: the turn before is read without them.
    return {
        (client, session): (speaker, withheld(content)[0])
        for client, session, speaker, content in found
    }


def _include_assistant(item: EventInput) -> bool:
    return item.extract_from_assistant or bool(setting("EXTRACT_FROM_ASSISTANT"))


def _may_extract(item: EventInput) -> bool:
    speaker = (item.speaker or "user").strip().lower()
    return speaker not in extraction.ASSISTANT_SPEAKERS or _include_assistant(item)
