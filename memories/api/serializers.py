"""API input and output shapes. Inputs refuse unknown fields: a typo is an error, not a
silently ignored value."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone
from rest_framework import serializers

from memories.api.fields import (
    HAS_TEXT,
    OneOrManyField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from memories.conf import setting
from memories.models import EventSource, Evidence, Kind, Status, Tier
from memories.text import clean

MAX_METADATA_BYTES = 16_384
FUTURE_TOLERANCE = timedelta(minutes=5)


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


class EventInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    session = StrictCharField(max_length=200, required=False, default="")
    # Does not shadow Field.source: DRF's metaclass takes declared fields off the class.
    source = serializers.ChoiceField(choices=EventSource.choices, default=EventSource.CHAT)  # type: ignore[assignment]
    speaker = StrictCharField(max_length=100, required=False, default="")
    content = StrictCharField(
        trim_whitespace=False,
        pattern=HAS_TEXT,
        help_text="What was said or observed: text (not only whitespace or control "
        "characters), at most MAX_EVENT_CHARS (65,536) characters.",
    )
    observed_at = serializers.DateTimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="When it happened (ISO 8601; default now). Not in the future: five "
        "minutes of clock skew are allowed.",
    )
    external_id = StrictCharField(
        max_length=200,
        required=False,
        default="",
        help_text="Your id for this event, unique per client: posting it again stores "
        "nothing and answers the same. A batch may not repeat one for the same client.",
    )
    metadata = serializers.DictField(
        required=False,
        default=dict,
        help_text="Any JSON object, at most 16 KB, with no NUL character in it.",
        error_messages={"not_a_dict": "metadata must be a JSON object."},
    )
    agent = StrictCharField(max_length=100, required=False, default="")
    project_id = StrictCharField(max_length=200, required=False, default="")
    task_id = StrictCharField(max_length=200, required=False, default="")
    run_id = StrictCharField(max_length=200, required=False, default="")
    extract_from_assistant = StrictBooleanField(required=False, default=False)

    def validate_content(self, value: str) -> str:
        limit = int(setting("MAX_EVENT_CHARS"))
        if len(value) > limit:
            raise serializers.ValidationError(
                f"Content is {len(value)} characters long; the limit is {limit}."
            )
        if not clean(value):
            raise serializers.ValidationError("Content is empty once whitespace is removed.")
        return value

    def validate_observed_at(self, value):
        if value is not None and value > timezone.now() + FUTURE_TOLERANCE:
            raise serializers.ValidationError("observed_at is in the future.")
        return value

    def validate_metadata(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("metadata must be a JSON object.")
        if _has_nul(value):
            raise serializers.ValidationError("Null characters are not allowed.")
        if len(json.dumps(value)) > MAX_METADATA_BYTES:
            raise serializers.ValidationError(
                f"metadata is larger than {MAX_METADATA_BYTES} bytes."
            )
        return value


class BatchInSerializer(StrictSerializer):
    events = EventInSerializer(many=True, allow_empty=False)
    # Stated in the schema as maxItems (memories/api/schema.py); checked in validate_events.
    list_limits = {"events": "MAX_BATCH_EVENTS"}

    def validate_events(self, value):
        limit = int(setting("MAX_BATCH_EVENTS"))
        if len(value) > limit:
            raise serializers.ValidationError(
                f"A batch holds at most {limit} events; this one has {len(value)}."
            )
        seen = set()
        for item in value:
            key = (item["client"], item["external_id"])
            if item["external_id"] and key in seen:
                raise serializers.ValidationError(
                    f"external_id {item['external_id']!r} appears twice for client "
                    f"{item['client']!r} in this batch."
                )
            seen.add(key)
        return value


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
    expires_at = serializers.DateTimeField(allow_null=True)


class RelatedOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Status.choices)


class OutcomeSerializer(MemoryBriefSerializer):
    """A memory as ingesting an event left it: what happened, and to which other memory."""

    action = serializers.ChoiceField(choices=Evidence.Action.values)
    related = RelatedOutSerializer(allow_null=True)


_datetime = serializers.DateTimeField()


def _when(value):
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
        "observed_at": _when(memory.observed_at),
        "expires_at": _when(memory.expires_at),
    }


def _event_data(event) -> dict:
    return {
        "id": str(event.pk),
        "client": event.client.external_ref,
        "session": event.session.external_ref if event.session_id else None,
        "source": event.source,
        "speaker": event.speaker,
        "content": event.content,
        "observed_at": _when(event.observed_at),
        "external_id": event.external_id,
        "metadata": event.metadata,
        "entities": event.entities,
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


def _choices_list(choices):
    return OneOrManyField(
        child=serializers.ChoiceField(choices=choices), required=False, default=list
    )


class FiltersSerializer(StrictSerializer):
    tier = _choices_list(Tier.choices)
    kind = _choices_list(Kind.choices)
    status = _choices_list(Status.choices)
    tags = OneOrManyField(
        child=StrictCharField(max_length=64), required=False, default=list, max_length=20
    )
    since = serializers.DateTimeField(
        required=False, default=None, allow_null=True, help_text="Not after `until`."
    )
    until = serializers.DateTimeField(required=False, default=None, allow_null=True)
    as_of = serializers.DateTimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="What memory said at this time (superseded and forgotten memories count).",
    )

    def validate(self, attrs):
        if attrs["since"] and attrs["until"] and attrs["since"] > attrs["until"]:
            raise serializers.ValidationError({"since": ["since is after until."]})
        return attrs


class SearchInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    query = StrictCharField(max_length=4000)
    k = StrictIntegerField(min_value=1, max_value=100, default=10)
    filters = FiltersSerializer(required=False, default=dict)


class ContextInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    message = StrictCharField(max_length=8000)
    budget_chars = StrictIntegerField(min_value=200, max_value=50_000, default=2000)
    k = StrictIntegerField(min_value=1, max_value=50, default=8)


class EvidenceOutSerializer(serializers.Serializer):
    event = serializers.UUIDField()
    external_id = serializers.CharField()
    observed_at = serializers.DateTimeField()


class SearchHitSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    kind = serializers.CharField()
    category = serializers.CharField()
    tier = serializers.CharField()
    status = serializers.CharField()
    score = serializers.FloatField()
    scores = serializers.DictField(child=serializers.FloatField())
    observed_at = serializers.DateTimeField()
    tags = serializers.ListField(child=serializers.CharField())
    evidence = EvidenceOutSerializer(many=True)


def hit_data(hit) -> dict:
    memory = hit.memory
    return {
        "id": str(memory.pk),
        "content": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "tier": memory.tier,
        "status": memory.status,
        "score": hit.score,
        "scores": hit.scores,
        "observed_at": _when(memory.observed_at),
        "tags": list(memory.tags),
        "evidence": [
            {
                "event": e["event"],
                "external_id": e["external_id"],
                "observed_at": _when(e["observed_at"]),
            }
            for e in hit.evidence
        ],
    }


def memory_detail_data(memory, *, evidence: list[dict], relations: list[dict]) -> dict:
    data = _memory_brief(memory)
    data.update(
        {
            "client": memory.client.external_ref,
            "title": memory.title,
            "tags": list(memory.tags),
            "created_at": _when(memory.created_at),
            "invalidated_at": _when(memory.invalidated_at),
            "usage_count": memory.usage_count,
            "dup_count": memory.dup_count,
            "evidence_count": memory.evidence_count,
            "is_latest": memory.is_latest,
            "evidence": [{**e, "observed_at": _when(e["observed_at"])} for e in evidence],
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


class ForgetInSerializer(StrictSerializer):
    reason = StrictCharField(max_length=500, required=False, default="", allow_blank=True)


class FeedbackInSerializer(StrictSerializer):
    useful = StrictBooleanField()
    note = StrictCharField(max_length=500, required=False, default="", allow_blank=True)


class MemoryListInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=20)
    kind = serializers.ChoiceField(choices=Kind.choices, required=False)
    tier = serializers.ChoiceField(choices=Tier.choices, required=False)
