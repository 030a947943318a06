"""What each statement extracted from an event becomes, once judged against what the
client's memory holds (``relate.judge``): a duplicate restated (counters, recency and
evidence move), or a new memory that adds to, extends, updates (supersedes) or conflicts
with an older one. Content is never updated. Evidence and audit go in bulk at the end of
an ingest call (``OutcomeWriter.flush``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    AuditEntry,
    Client,
    ConflictPolicy,
    Event,
    Evidence,
    Kind,
    Memory,
    MemoryEmbedding,
    Relation,
    RelationType,
    Status,
)
from memories.services.tenancy.audit import audit_entry
from memories.services.write.records import (
    lexemes_count,
    memory_build,
    statement_hash,
    statement_subject,
    stored_attribute,
)
from memories.services.write.relate import (
    Judgement,
    LiveIndex,
    Neighbours,
    judge,
    judge_episode,
)


def resolve_contradiction(
    *, old: Memory, confidence: float, observed_at, policy: str
) -> Evidence.Action:
    """``updated`` when the new statement may supersede ``old`` on its own, else ``conflict``."""
    if old.status == Status.PROMOTED or policy == ConflictPolicy.ALWAYS_REVIEW:
        return Evidence.Action.CONFLICT
    newer = observed_at >= old.observed_at
    explicit = confidence >= float(setting("SUPERSEDE_MIN_CONFIDENCE"))
    more_confident = confidence >= old.confidence + float(setting("SUPERSEDE_CONFIDENCE_MARGIN"))
    if newer and (explicit or more_confident):
        return Evidence.Action.UPDATED
    return Evidence.Action.CONFLICT


@dataclass(frozen=True)
class Outcome:
    memory: Memory
    action: str  # an Evidence.Action value
    related: Memory | None = None


class OutcomeWriter:
    """What one ingest call writes besides the events. New memories, their vectors,
    relations, evidence and audit are inserted in bulk at the end (``flush``); until then a
    memory the call added and then restates or supersedes is changed in place, and what the
    call adds is compared with what it judges next (``LiveIndex``, ``Neighbours``)."""

    def __init__(self, *, user, actor_label: str, space, index: LiveIndex, neighbours: Neighbours):
        self.user, self.actor_label, self.space, self.index = user, actor_label, space, index
        self.neighbours = neighbours
        self.contexts: dict = {}  # event id → the turn before it (ingest fills it)
        self.memories: dict = {}  # id → a memory this call adds (not yet inserted)
        self.vectors: list[MemoryEmbedding] = []
        self.relations: list[Relation] = []
        self.evidence: list[Evidence] = []
        self._linked: set[tuple] = set()  # (memory id, event id) of self.evidence
        self._restated: dict = {}  # stored memory id → (times, latest observed_at)
        self._superseded: dict = {}  # stored memory id → (when, reason)
        self.audit: list[AuditEntry] = []
        self.conflicts: list[int] = []  # ids of the conflicts_with relations, once flushed

    def apply(self, candidate, vector, *, client: Client, event: Event, item, key=None) -> Outcome:
        """The outcome of one statement; ``key`` names it in ``Neighbours.load``."""
        space = self.space if vector is not None else None

        def neighbours():
            return self.neighbours.of(key, client.pk, vector) if space else []

        content_hash = statement_hash(client.tenant, candidate.content)
        subject = statement_subject(item.speaker, client) or candidate.about
        if candidate.kind == Kind.EPISODIC:
            verdict = judge_episode(
                index=self.index,
                client=client,
                content_hash=content_hash,
                content=candidate.content,
                session_id=event.session_id,
                subject=subject,
                topic=candidate.topic,
                topic_probability=candidate.topic_probability,
                source_ref=f"event:{event.pk}",
            )
        else:
            verdict = judge(
                index=self.index,
                client=client,
                content_hash=content_hash,
                content=candidate.content,
                kind=candidate.kind,
                attribute=stored_attribute(client.tenant, candidate.attribute),
                value=candidate.value,
                negated=candidate.negated,
                neighbours=neighbours,
                tags=candidate.tags,
                subject=subject,
                model=space.model if space else None,
                topic=candidate.topic,
                topic_probability=candidate.topic_probability,
                source_ref=f"event:{event.pk}",
                speaker=item.speaker,
            )
        if verdict.action == Judgement.DUPLICATE:
            assert verdict.memory is not None  # judge names the memory a statement repeats
            outcome = self._restate(verdict.memory, event)
        else:
            outcome = self._add(
                candidate, vector, verdict, client=client, event=event, item=item, subject=subject
            )
        self.audit.append(
            audit_entry(
                tenant_id=client.tenant_id,
                actor=self.user,
                actor_label=self.actor_label,
                action=f"memory.{outcome.action}",
                object_type="memory",
                object_id=outcome.memory.pk,
                data={"event": str(event.pk)}
                | ({"related": str(outcome.related.pk)} if outcome.related else {}),
            )
        )
        return outcome

    def _add(self, candidate, vector, verdict, *, client, event, item, subject) -> Outcome:
        action, related = verdict.action, verdict.memory
        if action == Judgement.CONTRADICTION:
            action = resolve_contradiction(
                old=related,
                confidence=candidate.confidence,
                observed_at=event.observed_at,
                policy=client.tenant.conflict_policy,
            )
        embedded = vector is not None and self.space is not None
        memory = memory_build(
            client=client,
            kind=candidate.kind,
            category=candidate.category,
            content=candidate.content,
            confidence=candidate.confidence,
            importance=candidate.importance,
            observed_at=event.observed_at,
            expires_at=candidate.expires_at,
            session=event.session,
            source_ref=f"event:{event.pk}",
            origin_agent=item.agent,
            attribute=candidate.attribute,
            attribute_value=candidate.value,
            negated=candidate.negated,
            tags=candidate.tags,
            speaker=item.speaker,
            subject=subject,
            topic=candidate.topic,
            topic_probability=candidate.topic_probability,
            topics=dict(candidate.topics),
            occurred=candidate.occurred,
            context=self.contexts.get(event.pk, ""),
            evidence_count=1,
            needs_embedding=not embedded and client.tenant.vector_search_enabled,
        )
        self.memories[memory.pk] = memory
        self.index.add(memory)
        self._link(Evidence(memory=memory, event=event, action=action, related=related))
        if embedded:
            self.neighbours.add(memory, vector)
            self.vectors.append(
                MemoryEmbedding(
                    memory=memory,
                    space=self.space,
                    tenant_id=client.tenant_id,
                    client=client,
                    vector=vector,
                )
            )
        if related is not None:
            self.relations.append(
                Relation(
                    tenant_id=client.tenant_id,
                    source=memory,
                    target=related,
                    type=_RELATION_OF[action],
                    confidence=verdict.similarity or 1.0,
                )
            )
            if action == Evidence.Action.UPDATED:
                self._supersede(related, by=memory)
        return Outcome(memory, action, related)

    def _supersede(self, memory: Memory, *, by: Memory) -> None:
        self.index.discard(memory)
        self.neighbours.drop(memory)
        memory.status, memory.invalidated_at = Status.SUPERSEDED, timezone.now()
        memory.status_reason = f"updated by {by.pk}"
        if memory.pk not in self.memories:  # one the call added is inserted as it is now
            self._superseded[memory.pk] = (memory.invalidated_at, memory.status_reason)

    @property
    def superseded(self) -> list:
        """The stored memories the call superseded (ids)."""
        return list(self._superseded)

    def _restate(self, memory: Memory, event: Event) -> Outcome:
        """The client said it again: no new row; counters, recency and evidence move."""
        if (memory.pk, event.pk) in self._linked:
            return Outcome(memory, Evidence.Action.DEDUPLICATED)  # twice in one event counts once
        if memory.pk not in self.memories:
            times, seen = self._restated.get(memory.pk, (0, event.observed_at))
            self._restated[memory.pk] = (times + 1, max(seen, event.observed_at))
        memory.dup_count += 1
        memory.evidence_count += 1
        memory.last_seen_at = max(memory.last_seen_at, event.observed_at)
        self._link(
            Evidence(
                memory=memory,
                event=event,
                role=Evidence.Role.RESTATED,
                action=Evidence.Action.DEDUPLICATED,
            )
        )
        return Outcome(memory, Evidence.Action.DEDUPLICATED)

    def _link(self, evidence: Evidence) -> None:
        self.evidence.append(evidence)
        self._linked.add((evidence.memory.pk, evidence.event.pk))

    def flush(self) -> None:
        """Everything the call wrote, a statement per table: the stored memories it restated
        or superseded first, then what it added."""
        with connection.cursor() as cursor:
            if self._restated:
                ids = list(self._restated)
                cursor.execute(
                    "UPDATE memories_memory m SET dup_count = m.dup_count + r.n, "
                    "evidence_count = m.evidence_count + r.n, "
                    "last_seen_at = GREATEST(m.last_seen_at, r.seen) "
                    "FROM unnest(%s::uuid[], %s::int[], %s::timestamptz[]) AS r(id, n, seen) "
                    "WHERE m.id = r.id",
                    [ids, [self._restated[i][0] for i in ids], [self._restated[i][1] for i in ids]],
                )
            if self._superseded:
                ids = list(self._superseded)
                cursor.execute(
                    "UPDATE memories_memory m SET status = %s, invalidated_at = r.at, "
                    "status_reason = r.reason FROM unnest(%s::uuid[], %s::timestamptz[], "
                    "%s::text[]) AS r(id, at, reason) WHERE m.id = r.id",
                    [
                        Status.SUPERSEDED,
                        ids,
                        [self._superseded[i][0] for i in ids],
                        [self._superseded[i][1] for i in ids],
                    ],
                )
        Memory.objects.bulk_create(self.memories.values())
        lexemes_count(list(self.memories))
        MemoryEmbedding.objects.bulk_create(self.vectors)
        Relation.objects.bulk_create(self.relations)
        self.conflicts = [r.pk for r in self.relations if r.type == RelationType.CONFLICTS_WITH]
        Evidence.objects.bulk_create(self.evidence)
        AuditEntry.objects.bulk_create(self.audit)


_RELATION_OF = {
    Evidence.Action.UPDATED: RelationType.UPDATES,
    Evidence.Action.CONFLICT: RelationType.CONFLICTS_WITH,
    Evidence.Action.EXTENDED: RelationType.EXTENDS,
}


def stored_outcomes(event: Event) -> list[Outcome]:
    evidence = (
        Evidence.objects.filter(event=event)
        .exclude(action="")
        .select_related("memory", "related")
        .order_by("created_at", "id")
    )
    return [Outcome(e.memory, e.action, e.related) for e in evidence]
