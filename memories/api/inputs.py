"""What the API accepts: input serializers. They refuse unknown fields and coerce nothing
(``fields``): a typo or a number where text belongs is an error naming the field."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone
from rest_framework import serializers

from memories import jsonbody
from memories.api.fields import (
    HAS_VISIBLE_TEXT,
    ClientRefField,
    DayField,
    OneOrManyField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    TimeField,
)
from memories.conf import setting
from memories.models import EventSource, Kind, Status, Tier
from memories.text import clean, has_text

MAX_METADATA_BYTES = 16_384
# Metadata nests at most this deep, so that an export (which holds it four levels down)
# stays within what the API parses (memories.jsonbody.MAX_DEPTH).
MAX_METADATA_DEPTH = 32
FUTURE_TOLERANCE = timedelta(minutes=5)


def _has_nul(value) -> bool:
    return any("\x00" in s for s in jsonbody.strings(value))


class EventInSerializer(StrictSerializer):
    client = ClientRefField()
    session = StrictCharField(max_length=200, required=False, default="")
    # Does not shadow Field.source: DRF's metaclass takes declared fields off the class.
    source = serializers.ChoiceField(choices=EventSource.choices, default=EventSource.CHAT)  # type: ignore[assignment]
    speaker = StrictCharField(max_length=100, required=False, default="")
    content = StrictCharField(
        trim_whitespace=False,
        pattern=HAS_VISIBLE_TEXT,
        help_text="What was said or observed: text (not only whitespace, control or "
        "zero-width characters, and no NUL), at most MAX_EVENT_CHARS (65,536) characters.",
    )
    observed_at = TimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="When it happened (ISO 8601; default now). Not in the future: a time "
        "more than five minutes ahead of the server's clock is refused (400).",
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
        help_text="Any JSON object, at most 16 KB and 32 levels deep, with no NUL "
        "character, lone surrogate or infinite number in it.",
        error_messages={"not_a_dict": "metadata must be a JSON object."},
    )
    agent = StrictCharField(max_length=100, required=False, default="")
    project_id = StrictCharField(max_length=200, required=False, default="")
    task_id = StrictCharField(max_length=200, required=False, default="")
    run_id = StrictCharField(max_length=200, required=False, default="")
    extract_from_assistant = StrictBooleanField(required=False, default=False)
    item_key = StrictCharField(
        max_length=300,
        required=False,
        default="",
        help_text="The key of the item this event is a version of, as a framework's store "
        "names it (a LangGraph store's namespace and key): the newest event with the key "
        "is the item (GET /api/v1/items/); the memories only its earlier versions taught "
        "are forgotten.",
    )
    # Stated in the schema as maxLength (memories/api/schema.py); checked in validate_content.
    text_limits = {"content": "MAX_EVENT_CHARS"}

    def validate_content(self, value: str) -> str:
        limit = int(setting("MAX_EVENT_CHARS"))
        if len(value) > limit:
            raise serializers.ValidationError(
                f"Content is {len(value)} characters long; the limit is {limit}."
            )
        if not clean(value):
            raise serializers.ValidationError("Content is empty once whitespace is removed.")
        if not has_text(value):
            raise serializers.ValidationError(
                "Content shows nothing: it holds only invisible characters (zero-width "
                "spaces or joiners, format or filler characters)."
            )
        return value

    def validate_observed_at(self, value):
        if value is not None and value > timezone.now() + FUTURE_TOLERANCE:
            raise serializers.ValidationError("observed_at is in the future.")
        return value

    def validate_metadata(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("metadata must be a JSON object.")
        if (depth := jsonbody.depth_of(value)) > MAX_METADATA_DEPTH:
            raise serializers.ValidationError(
                f"metadata is nested {depth} levels deep; the limit is {MAX_METADATA_DEPTH}."
            )
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
    since = TimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="Only memories observed at or after this time. Not after `until`: "
        "`since` > `until` is refused (400).",
    )
    until = TimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="Only memories observed at or before this time. Not before `since`.",
    )
    as_of = TimeField(
        required=False,
        default=None,
        allow_null=True,
        help_text="What memory said at this time (superseded and forgotten memories count).",
    )
    speaker = OneOrManyField(
        child=StrictCharField(max_length=100),
        required=False,
        default=list,
        max_length=20,
        help_text="Only what these speakers said (the events' speaker, any case).",
    )
    happened_since = DayField(
        required=False,
        default=None,
        allow_null=True,
        help_text="Only what happened on or after this day (occurred_on, or the day it was "
        "said when the text gives no day). Not after `happened_until`: `happened_since` > "
        "`happened_until` is refused (400).",
    )
    happened_until = DayField(
        required=False,
        default=None,
        allow_null=True,
        help_text="Only what happened on or before this day. Not before `happened_since`.",
    )

    def validate(self, attrs):
        if attrs["since"] and attrs["until"] and attrs["since"] > attrs["until"]:
            raise serializers.ValidationError({"since": ["since is after until."]})
        if (
            attrs["happened_since"]
            and attrs["happened_until"]
            and attrs["happened_since"] > attrs["happened_until"]
        ):
            raise serializers.ValidationError(
                {"happened_since": ["happened_since is after happened_until."]}
            )
        return attrs


class SearchInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    query = StrictCharField(max_length=4000)
    k = StrictIntegerField(min_value=1, max_value=100, default=10)
    budget_chars = StrictIntegerField(
        min_value=1,
        max_value=200_000,
        required=False,
        default=None,
        allow_null=True,
        help_text="At most this many characters of content in all: as many of the best "
        "results as fit (k still caps them). A result longer than the budget alone is "
        "left out.",
    )
    filters = FiltersSerializer(required=False, default=dict)
    explain = StrictBooleanField(
        required=False,
        default=False,
        help_text="true: each result also carries why it ranked where it did (score, scores, "
        "tier, status, tags, evidence). Also as the query parameter ?explain=true.",
    )


class ContextInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    message = StrictCharField(max_length=8000)
    budget_chars = StrictIntegerField(min_value=200, max_value=50_000, default=2000)
    k = StrictIntegerField(min_value=1, max_value=50, default=8)
    explain = StrictBooleanField(
        required=False,
        default=False,
        help_text="true: each memory also carries why it ranked where it did (score, scores, "
        "tier, status, tags, evidence) and each profile entry its confidence. Also as the "
        "query parameter ?explain=true.",
    )


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


class ItemsInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    key = StrictCharField(max_length=300, required=False, default="")
    prefix = StrictCharField(max_length=300, required=False, default="")
    event = serializers.ListField(
        child=serializers.UUIDField(), required=False, default=list, max_length=100
    )
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    offset = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)


class ItemDeleteInSerializer(StrictSerializer):
    client = StrictCharField(max_length=200)
    key = StrictCharField(max_length=300)


class ClientListInSerializer(StrictSerializer):
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    # Past the last client, a page is empty; a bound keeps the number an integer PostgreSQL
    # takes.
    offset = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
