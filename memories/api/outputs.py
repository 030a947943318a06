"""What the API answers: output serializers (for the schema) and the ``*_data`` functions
that write the same dicts by hand on the hot paths."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from rest_framework import serializers

from memories.models import Evidence, Precision, Status

MAX_METADATA_BYTES = 16_384
FUTURE_TOLERANCE = timedelta(minutes=5)


class EventOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    client = serializers.CharField(source="client.external_ref")
    session = serializers.CharField(source="session.external_ref", default=None, allow_null=True)
    # Does not shadow Field.source: DRF's metaclass takes declared fields off the class.
    source = serializers.CharField()  # type: ignore[assignment]
    speaker = serializers.CharField()
    content = serializers.CharField()
    observed_at = serializers.DateTimeField()
    external_id = serializers.CharField()
    metadata = serializers.JSONField()
    entities = serializers.JSONField()
    item_key = serializers.CharField(help_text="The item it is a version of; empty: none.")


class MemoryBriefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.CharField()
    category = serializers.CharField()
    content = serializers.CharField()
    tier = serializers.CharField()
    status = serializers.CharField()
    confidence = serializers.FloatField()
    importance = serializers.FloatField()
    observed_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Operational context leaves memory at this time; a plan, deadline or "
        "appointment becomes past (see past) and stays.",
    )
    past = serializers.BooleanField(
        help_text="What it speaks of was ahead when said and its day has gone by (a plan, a "
        "deadline): still memory, ranked a little lower."
    )
    speaker = serializers.CharField(help_text="Who said it (the event's speaker).")
    subject = serializers.CharField(
        help_text="Whom it is about: empty for the client, else the person's name."
    )
    occurred_on = serializers.DateField(
        allow_null=True,
        help_text="When what it tells of happens or happened, when the text says so "
        "('yesterday', 'last month', 'next Friday', a date), resolved against observed_at; a "
        "plan's day may be ahead; null: when it was said.",
    )
    occurred_precision = serializers.ChoiceField(
        choices=["", *Precision.values],
        help_text="occurred_on is that day, or the first day of that week, month or year.",
    )


class RelatedOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Status.choices)


class OutcomeSerializer(MemoryBriefSerializer):
    """A memory as ingesting an event left it: what happened, and to which other memory."""

    action = serializers.ChoiceField(choices=Evidence.Action.values)
    related = RelatedOutSerializer(allow_null=True)


_datetime = serializers.DateTimeField()


def datetime_out(value):
    return None if value is None else _datetime.to_representation(value)


def _memory_brief(memory) -> dict:
    # Written out by hand: a 500-event batch answers ~1,000 of these, and DRF's generic
    # field machinery costs more than the database work. The fields are the serializers'.
    return {
        "id": str(memory.pk),
        "kind": memory.kind,
        "category": memory.category,
        "content": memory.content,
        "tier": memory.tier,
        "status": memory.status,
        "confidence": memory.confidence,
        "importance": memory.importance,
        "observed_at": datetime_out(memory.observed_at),
        "expires_at": datetime_out(memory.expires_at),
        "past": memory.is_past(timezone.now()),
        **_attribution(memory),
    }


def _attribution(memory) -> dict:
    return {
        "speaker": memory.speaker,
        "subject": memory.subject,
        "occurred_on": memory.occurred_on.isoformat() if memory.occurred_on else None,
        "occurred_precision": memory.occurred_precision,
    }


def _event_data(event) -> dict:
    return {
        "id": str(event.pk),
        "client": event.client.external_ref,
        "session": event.session.external_ref if event.session_id else None,
        "source": event.source,
        "speaker": event.speaker,
        "content": event.content,
        "observed_at": datetime_out(event.observed_at),
        "external_id": event.external_id,
        "metadata": event.metadata,
        "entities": event.entities,
        "item_key": event.item_key,
    }


def item_data(item: dict) -> dict:
    return {
        "key": item["key"],
        "created_at": datetime_out(item["created_at"]),
        "updated_at": datetime_out(item["updated_at"]),
        "event": _event_data(item["event"]),
    }


def ingest_result_data(result) -> dict:
    """The answer for one event, shaped as EventOutSerializer and OutcomeSerializer."""
    memories = []
    for outcome in result.outcomes:
        data = _memory_brief(outcome.memory)
        data["action"] = outcome.action
        data["related"] = (
            {"id": str(outcome.related.pk), "status": outcome.related.status}
            if outcome.related is not None
            else None
        )
        memories.append(data)
    return {"event": _event_data(result.event), "memories": memories}


# Said of the fields an answer holds only when asked with ``explain``.
EXPLAINED: dict[str, Any] = {"required": False, "help_text": "With explain only."}


class EvidenceOutSerializer(serializers.Serializer):
    """An event a memory rests on: by default the caller's own id of it (what an agent
    cites, and what the benchmarks' scripts score), with ``explain`` its id and time too."""

    external_id = serializers.CharField()
    event = serializers.UUIDField(**EXPLAINED)
    observed_at = serializers.DateTimeField(**EXPLAINED)


class SearchHitSerializer(serializers.Serializer):
    """A memory as an agent reads it: its words, kind and category, who said it about whom,
    when it was said and when what it tells of happens (past or ahead), and its id to act
    on, and the caller's ids of the events it rests on. Why it ranked where it did (score
    and components, tier, status, tags, each event's id and time) only with ``explain``."""

    id = serializers.UUIDField()
    content = serializers.CharField()
    kind = serializers.CharField()
    category = serializers.CharField()
    observed_at = serializers.DateTimeField(help_text="When it was said.")
    past = serializers.BooleanField(
        help_text="A plan or deadline whose day has gone by (ranked a little lower)."
    )
    speaker = serializers.CharField()
    subject = serializers.CharField()
    occurred_on = serializers.DateField(
        allow_null=True,
        help_text="When what it tells of happens or happened (ahead of today: still to "
        "come); null: when it was said.",
    )
    occurred_precision = serializers.ChoiceField(choices=["", *Precision.values])
    tier = serializers.CharField(**EXPLAINED)
    status = serializers.CharField(**EXPLAINED)
    score = serializers.FloatField(**EXPLAINED)
    scores = serializers.DictField(child=serializers.FloatField(), **EXPLAINED)
    tags = serializers.ListField(child=serializers.CharField(), **EXPLAINED)
    evidence = EvidenceOutSerializer(many=True)


def hit_data(hit, *, explain: bool = False) -> dict:
    """A search hit as ``SearchHitSerializer`` (its explaining fields with ``explain``)."""
    memory = hit.memory
    data = {
        "id": str(memory.pk),
        "content": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "observed_at": datetime_out(memory.observed_at),
        "past": bool(hit.scores.get("past")),
        **_attribution(memory),
        "evidence": [{"external_id": e["external_id"]} for e in hit.evidence if e["external_id"]],
    }
    if explain:
        data.update(
            {
                "tier": memory.tier,
                "status": memory.status,
                "score": hit.score,
                "scores": hit.scores,
                "tags": list(memory.tags),
                "evidence": [
                    {
                        "event": e["event"],
                        "external_id": e["external_id"],
                        "observed_at": datetime_out(e["observed_at"]),
                    }
                    for e in hit.evidence
                ],
            }
        )
    return data


def memory_detail_data(memory, *, evidence: list[dict], relations: list[dict]) -> dict:
    data = _memory_brief(memory)
    data.update(
        {
            "client": memory.client.external_ref,
            "title": memory.title,
            "tags": list(memory.tags),
            "created_at": datetime_out(memory.created_at),
            "invalidated_at": datetime_out(memory.invalidated_at),
            "usage_count": memory.usage_count,
            "dup_count": memory.dup_count,
            "evidence_count": memory.evidence_count,
            "is_latest": memory.is_latest,
            "evidence": [{**e, "observed_at": datetime_out(e["observed_at"])} for e in evidence],
            "relations": [
                {
                    "type": r["type"],
                    "direction": r["direction"],
                    "memory": {
                        "id": str(r["memory"].pk),
                        "content": r["memory"].content,
                        "status": r["memory"].status,
                    },
                }
                for r in relations
            ],
        }
    )
    return data
