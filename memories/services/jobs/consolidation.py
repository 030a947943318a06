"""Episodic → semantic consolidation (seed 004 §8 job C): an episode a client keeps
repeating ("I met James for coffee last Tuesday", "… on Friday", "… yesterday") becomes one
candidate fact, decision or procedure, with the episodes' events as its evidence and a
``derives`` relation to each episode. A supervisor reviews it like any promotion.

The engine (``Consolidation``) is shared with principle extraction: per client, the live
memories of some kinds are grouped around a seed (each member close to the seed itself,
no chains); a group big enough, spread over enough days and evidence, becomes a new
candidate memory; a group that already has one adds its new members to it. The members
keep their status: the raw episodes expire later, through the TTL sweep, once
consolidated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from memories.conf import setting
from memories.models import (
    LIVE_STATUSES,
    AuditEntry,
    Category,
    Client,
    Event,
    EventSource,
    Evidence,
    Kind,
    Memory,
    Relation,
    RelationType,
    SourceKind,
    Status,
)
from memories.services.embedding.reembed import memories_embed_now
from memories.services.extraction.vocabulary import TEMPORAL_WORDS
from memories.services.extraction.wording import stem, without_time, wording
from memories.services.jobs.claims import clients_try_lock
from memories.services.jobs.fusion import unit_vectors
from memories.services.jobs.runner import JobCounts
from memories.services.tenancy.audit import audit_entry
from memories.services.write.records import memory_add
from memories.services.write.staleness import clients_mark_profile_stale

_TEMPORAL_STEMS = frozenset(stem(word) for word in TEMPORAL_WORDS)
_FIELDS = (
    "pk",
    "content",
    "confidence",
    "importance",
    "observed_at",
    "last_seen_at",
    "evidence_count",
    "attribute",
    "attribute_value",
    "negated",
    "tags",
)


@dataclass(frozen=True)
class Consolidation:
    job: str  # also the source_ref of what it writes: "job:<job>"
    kinds: tuple[str, ...]  # what it reads
    similarity: str  # setting names
    min_members: str
    min_overlap: str | None  # words the members must share (None: meaning alone)
    min_evidence: str | None  # distinct events behind a group
    min_spread: int  # distinct days (episodes) or sessions (principles) a group spans
    spread_by_session: bool
    output: Callable[[list[dict], list[Event]], dict]  # fields of the new memory

    @property
    def source_ref(self) -> str:
        return f"job:{self.job}"

    def run(self, *, tenant_id, counts: JobCounts) -> None:
        members = Memory.objects.filter(status__in=LIVE_STATUSES, kind__in=self.kinds).exclude(
            source_ref=self.source_ref
        )
        if tenant_id is not None:
            members = members.filter(tenant_id=tenant_id)
        client_ids = list(
            members.values("client_id")
            .annotate(n=Count("id"))
            .filter(n__gte=2)
            .order_by("client_id")
            .values_list("client_id", flat=True)
        )
        size = max(1, int(setting("JOB_BATCH_SIZE")) // 100)
        for start in range(0, len(client_ids), size):
            with transaction.atomic():
                group = client_ids[start : start + size]
                locked = clients_try_lock(group)
                counts.add("clients_busy", len(group) - len(locked))
                created = []
                for client_id in locked:
                    created += self._client(client_id, counts)
            memories_embed_now(created)

    def _client(self, client_id, counts: JobCounts) -> list:
        cap = int(setting("CONSOLIDATE_MAX_PER_CLIENT"))
        rows = list(
            Memory.objects.filter(
                client_id=client_id, status__in=LIVE_STATUSES, kind__in=self.kinds
            )
            .exclude(source_ref=self.source_ref)
            .exclude(source_kind=SourceKind.JOB, kind=Kind.EPISODIC)  # summaries are not episodes
            .order_by("-last_seen_at", "pk")
            .values(*_FIELDS)[:cap]
        )
        if len(rows) < 2:
            return []
        derived = Relation.objects.filter(
            type=RelationType.DERIVES,
            target_id__in=[row["pk"] for row in rows],
            source__source_ref=self.source_ref,
        ).values_list("target_id", "source_id", "source__status")
        owner, retired = {}, set()
        for target, source, status in derived:
            if status in LIVE_STATUSES:
                owner[target] = source
            else:
                retired.add(target)  # its output was merged or forgotten: done with it
        rows = [row for row in rows if row["pk"] not in retired or row["pk"] in owner]
        by_pk = {row["pk"]: row for row in rows}
        similar = self._similar(list(by_pk))
        groups = self._groups(rows, owner, similar)
        created = []
        for output_id, members in groups:
            if output_id is not None:
                fresh = [m for m in members if m["pk"] not in owner]
                if fresh:
                    self._extend(output_id, fresh, similar)
                    counts.add("extended", len(fresh))
            elif self._enough(members):
                created.append(self._create(client_id, members, similar))
                counts.add("created")
        if created:
            clients_mark_profile_stale(client_ids=[client_id])
        return created

    def _similar(self, ids: list) -> Callable:
        """cosine(a, b) over one embedding space: the one most of these memories have."""
        vectors = unit_vectors(ids)
        spaces = Counter(space for per in vectors.values() for space in per)
        if not spaces:
            return lambda a, b: None
        space = max(spaces, key=lambda s: (spaces[s], s))
        have = [pk for pk in ids if space in vectors.get(pk, {})]
        index = {pk: i for i, pk in enumerate(have)}
        matrix = np.stack([vectors[pk][space] for pk in have]) if have else np.zeros((0, 1))
        product = matrix @ matrix.T

        def cosine(a, b):
            if a not in index or b not in index:
                return None
            return float(product[index[a], index[b]])

        return cosine

    def _groups(self, rows, owner: dict, similar) -> list:
        """(existing output or None, members), each member close to its group's seed."""
        threshold = float(setting(self.similarity))
        overlap = float(setting(self.min_overlap)) if self.min_overlap else None
        taken: set = set()
        seeds = sorted(
            rows,
            key=lambda r: (
                r["pk"] not in owner,
                -r["evidence_count"],
                r["observed_at"],
                str(r["pk"]),
            ),
        )
        groups = []
        for seed in seeds:
            if seed["pk"] in taken:
                continue
            taken.add(seed["pk"])
            output_id = owner.get(seed["pk"])
            members = [seed]
            for other in seeds:
                if other["pk"] in taken:
                    continue
                if owner.get(other["pk"], output_id) != output_id:
                    continue  # already part of another output
                cosine = similar(seed["pk"], other["pk"])
                if cosine is None or cosine < threshold:
                    continue
                if not _agree(seed, other, overlap):
                    continue
                members.append(other)
                taken.add(other["pk"])
            groups.append((output_id, members))
        return groups

    def _enough(self, members: list[dict]) -> bool:
        if len(members) < int(setting(self.min_members)):
            return False
        events = _events_of([m["pk"] for m in members])
        if self.min_evidence and len(events) < int(setting(self.min_evidence)):
            return False
        if self.spread_by_session:
            spread = {e.session_id or e.pk for e in events}
        else:
            spread = {m["observed_at"].date() for m in members}
        return len(spread) >= self.min_spread

    def _create(self, client_id, members: list[dict], similar) -> object:
        client = Client.objects.select_related("tenant").get(pk=client_id)
        events = _events_of([m["pk"] for m in members])
        fields = self.output(members, events)
        memory = memory_add(
            client=client,
            status=Status.CANDIDATE,
            confidence=round(min(0.9, sum(m["confidence"] for m in members) / len(members)), 4),
            importance=max(m["importance"] for m in members),
            observed_at=min(m["observed_at"] for m in members),
            source_kind=SourceKind.JOB,
            source_ref=self.source_ref,
            tags=sorted({tag for m in members for tag in m["tags"]}),
            evidence=events,
            evidence_role=Evidence.Role.CONSOLIDATED,
            evidence_action="",
            **fields,
        )
        Memory.objects.filter(pk=memory.pk).update(
            dup_count=len(members) - 1, last_seen_at=max(m["last_seen_at"] for m in members)
        )
        self._link(memory.pk, client.tenant_id, members, similar, seed=members[0]["pk"])
        AuditEntry.objects.bulk_create(
            [
                audit_entry(
                    tenant_id=client.tenant_id,
                    actor_label=f"job:{self.job}",
                    action="memory.consolidate",
                    object_type="memory",
                    object_id=memory.pk,
                    data={"from": [str(m["pk"]) for m in members]},
                )
            ]
        )
        return memory.pk

    def _extend(self, output_id, fresh: list[dict], similar) -> None:
        output = Memory.objects.only("pk", "tenant_id").get(pk=output_id)
        seed = (
            Relation.objects.filter(source_id=output_id, type=RelationType.DERIVES)
            .order_by("-confidence", "pk")
            .values_list("target_id", flat=True)
            .first()
        )
        self._link(output_id, output.tenant_id, fresh, similar, seed=seed)
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO memories_evidence (memory_id, event_id, role, action, created_at) "
                "SELECT %s, event_id, 'consolidated', '', %s FROM memories_evidence "
                "WHERE memory_id = ANY(%s) ON CONFLICT DO NOTHING",
                [output_id, timezone.now(), [m["pk"] for m in fresh]],
            )
            cursor.execute(
                "UPDATE memories_memory SET dup_count = dup_count + %s, "
                "last_seen_at = GREATEST(last_seen_at, %s), "
                "evidence_count = (SELECT count(*) FROM memories_evidence WHERE memory_id = %s) "
                "WHERE id = %s",
                [len(fresh), max(m["last_seen_at"] for m in fresh), output_id, output_id],
            )

    def _link(self, output_id, tenant_id, members, similar, *, seed) -> None:
        Relation.objects.bulk_create(
            [
                Relation(
                    tenant_id=tenant_id,
                    source_id=output_id,
                    target_id=m["pk"],
                    type=RelationType.DERIVES,
                    confidence=round(min(1.0, max(0.0, similar(seed, m["pk"]) or 1.0)), 4),
                    reason=self.source_ref,
                )
                for m in members
            ],
            ignore_conflicts=True,
        )


def _agree(seed: dict, other: dict, overlap: float | None) -> bool:
    """Same polarity and, when both say what they are about, the same value; with
    ``overlap``, enough shared words once days and times are set aside."""
    if seed["negated"] != other["negated"]:
        return False
    same_attribute = seed["attribute"] and seed["attribute"] == other["attribute"]
    if same_attribute and seed["attribute_value"] != other["attribute_value"]:
        return False
    first, second = wording(seed["content"]), wording(other["content"])
    if first.negations != second.negations:
        return False
    if overlap is None:
        return True
    a, b = first.core - _TEMPORAL_STEMS, second.core - _TEMPORAL_STEMS
    union = a | b
    return bool(union) and len(a & b) / len(union) >= overlap


def _events_of(memory_ids: list) -> list[Event]:
    return list(
        Event.objects.filter(evidence_for__memory_id__in=memory_ids)
        .distinct()
        .order_by("observed_at", "pk")
    )


def _episode_output(members: list[dict], events: list[Event]) -> dict:
    """A decision when the episodes were decisions, a procedure when they were tool runs,
    else a fact; worded as the seed episode without its days."""
    sources = Counter(e.source for e in events)
    top = sources.most_common(1)[0][0] if sources else EventSource.CHAT
    by_source: dict[str, tuple[str, str]] = {
        EventSource.DECISION: (Kind.DECISION, ""),
        EventSource.TOOL: (Kind.PROCEDURAL, ""),
        EventSource.OBSERVATION: (Kind.PROCEDURAL, ""),
    }
    kind, category = by_source.get(top, (Kind.SEMANTIC, Category.FACT))
    return {
        "kind": kind,
        "category": category,
        "content": f"Recurring: {without_time(members[0]['content'])}",
        "title": f"{len(members)} similar episodes",
        "metadata": {
            "job": "consolidate_episodes",
            "episodes": len(members),
            "first": min(m["observed_at"] for m in members).isoformat(),
            "last": max(m["observed_at"] for m in members).isoformat(),
        },
    }


EPISODES = Consolidation(
    job="consolidate_episodes",
    kinds=(Kind.EPISODIC,),
    similarity="CONSOLIDATE_SIMILARITY",
    min_members="CONSOLIDATE_MIN_EPISODES",
    min_overlap="CONSOLIDATE_MIN_LEXICAL_OVERLAP",
    min_evidence=None,
    min_spread=2,
    spread_by_session=False,
    output=_episode_output,
)


def episodes_consolidate(*, tenant_id=None, counts: JobCounts) -> None:
    EPISODES.run(tenant_id=tenant_id, counts=counts)
