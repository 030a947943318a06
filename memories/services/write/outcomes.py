"""What each statement extracted from an event becomes, once judged against what the
client's memory holds (``relate.judge``): a duplicate restated (counters, recency and
evidence move), or a new memory that adds to, extends, updates (supersedes) or conflicts
with an older one. Content is never updated. Evidence and audit go in bulk at the end of
an ingest call (``OutcomeWriter.flush``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from memories.models import (
    AuditEntry,
    Client,
    Event,
    Evidence,
    Memory,
    MemoryEmbedding,
    Relation,
    RelationType,
    Status,
)
from memories.services.tenancy.audit import audit_entry
from memories.services.write.records import memory_add, statement_hash, stored_attribute
from memories.services.write.relate import (
    Judgement,
    LiveIndex,
    judge,
    nearest_live,
    resolve_contradiction,
)


@dataclass(frozen=True)
class Outcome:
    memory: Memory
    action: str  # an Evidence.Action value
    related: Memory | None = None


class OutcomeWriter:
    """What one ingest call writes besides the events; evidence and audit go in bulk."""

    def __init__(self, *, user, actor_label: str, space, index: LiveIndex):
        self.user, self.actor_label, self.space, self.index = user, actor_label, space, index
        self.evidence: list[Evidence] = []
        self.audit: list[AuditEntry] = []
        self.conflicts: list[int] = []

    def apply(self, candidate, vector, *, client: Client, event: Event, item) -> Outcome:
        space = self.space if vector is not None else None

        def neighbours():
            return nearest_live(client_id=client.pk, space=space, vector=vector) if space else []

        verdict = judge(
            index=self.index,
            client=client,
            content_hash=statement_hash(client.tenant, candidate.content),
            content=candidate.content,
            kind=candidate.kind,
            attribute=stored_attribute(client.tenant, candidate.attribute),
            value=candidate.value,
            negated=candidate.negated,
            neighbours=neighbours,
        )
        if verdict.action == Judgement.DUPLICATE:
            assert verdict.memory is not None  # judge names the memory a statement repeats
            outcome = self._restate(verdict.memory, event)
        else:
            outcome = self._add(candidate, vector, verdict, client=client, event=event, item=item)
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

    def _add(self, candidate, vector, verdict, *, client, event, item) -> Outcome:
        action, related = verdict.action, verdict.memory
        if action == Judgement.CONTRADICTION:
            action = resolve_contradiction(
                old=related,
                confidence=candidate.confidence,
                observed_at=event.observed_at,
                policy=client.tenant.conflict_policy,
            )
        embedded = vector is not None and self.space is not None
        memory = memory_add(
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
            language=candidate.language,
            tags=candidate.tags,
            evidence=[event],
            link_evidence=False,
            needs_embedding=not embedded and client.tenant.vector_search_enabled,
        )
        self.index.add(memory)
        self.evidence.append(Evidence(memory=memory, event=event, action=action, related=related))
        if embedded:
            MemoryEmbedding.objects.create(
                memory=memory,
                space=self.space,
                tenant_id=client.tenant_id,
                client=client,
                vector=vector,
            )
        if related is not None:
            relation = Relation.objects.create(
                tenant_id=client.tenant_id,
                source=memory,
                target=related,
                type=_RELATION_OF[action],
                confidence=verdict.similarity or 1.0,
            )
            if action == Evidence.Action.UPDATED:
                self.index.discard(related)
                related.status, related.invalidated_at = Status.SUPERSEDED, timezone.now()
                related.status_reason = f"updated by {memory.pk}"
                Memory.objects.filter(pk=related.pk).update(
                    status=related.status,
                    invalidated_at=related.invalidated_at,
                    status_reason=related.status_reason,
                )
            elif action == Evidence.Action.CONFLICT:
                self.conflicts.append(relation.pk)
        return Outcome(memory, action, related)

    def _restate(self, memory: Memory, event: Event) -> Outcome:
        """The client said it again: no new row; counters, recency and evidence move."""
        if any(e.memory_id == memory.pk and e.event_id == event.pk for e in self.evidence):
            return Outcome(memory, Evidence.Action.DEDUPLICATED)  # twice in one event counts once
        Memory.objects.filter(pk=memory.pk).update(
            dup_count=F("dup_count") + 1,
            last_seen_at=Greatest(F("last_seen_at"), event.observed_at),
            evidence_count=F("evidence_count") + 1,
        )
        memory.dup_count += 1
        memory.evidence_count += 1
        memory.last_seen_at = max(memory.last_seen_at, event.observed_at)
        self.evidence.append(
            Evidence(
                memory=memory,
                event=event,
                role=Evidence.Role.RESTATED,
                action=Evidence.Action.DEDUPLICATED,
            )
        )
        return Outcome(memory, Evidence.Action.DEDUPLICATED)

    def flush(self) -> None:
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
