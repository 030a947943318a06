"""Response shapes, for the OpenAPI schema only: the views write these dicts directly
(``memories.api.outputs``' ``*_data`` functions), and these classes describe them."""

from __future__ import annotations

from rest_framework import serializers

from memories.api.outputs import (
    EventOutSerializer,
    EvidenceOutSerializer,
    MemoryBriefSerializer,
    OutcomeSerializer,
    SearchHitSerializer,
)
from memories.models import Precision, RelationType, Status


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    # Does not shadow Serializer.fields: DRF's metaclass takes declared fields off the class.
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))  # type: ignore[assignment]


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


class IngestResultSerializer(serializers.Serializer):
    event = EventOutSerializer()
    memories = OutcomeSerializer(many=True)


class BatchResultSerializer(serializers.Serializer):
    results = IngestResultSerializer(many=True)


class SearchOutSerializer(serializers.Serializer):
    results = SearchHitSerializer(many=True)


class RelatedMemorySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    status = serializers.ChoiceField(choices=Status.choices)


class RelationOutSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=RelationType.choices)
    direction = serializers.ChoiceField(choices=["in", "out"])
    memory = RelatedMemorySerializer()


class MemoryEvidenceSerializer(EvidenceOutSerializer):
    # A memory's own page of evidence always says which event and when.
    event = serializers.UUIDField()
    observed_at = serializers.DateTimeField()
    role = serializers.ChoiceField(choices=["extracted", "restated", "consolidated"])


class MemoryDetailSerializer(MemoryBriefSerializer):
    client = serializers.CharField()
    title = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    invalidated_at = serializers.DateTimeField(allow_null=True)
    usage_count = serializers.IntegerField()
    dup_count = serializers.IntegerField()
    evidence_count = serializers.IntegerField()
    is_latest = serializers.BooleanField()
    evidence = MemoryEvidenceSerializer(many=True)
    relations = RelationOutSerializer(many=True)


class MemoryListOutSerializer(serializers.Serializer):
    results = MemoryDetailSerializer(many=True)


class MemoryVersionSerializer(MemoryDetailSerializer):
    current = serializers.BooleanField()


class HistoryOutSerializer(serializers.Serializer):
    versions = MemoryVersionSerializer(many=True)


def _disputed_by() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.UUIDField(),
        help_text="The memories this one contradicts in a conflict still waiting for review "
        "(they are left out of the context); empty when it is not disputed.",
    )


class ProfileEntrySerializer(serializers.Serializer):
    memory = serializers.UUIDField()
    text = serializers.CharField()
    kind = serializers.CharField()
    category = serializers.CharField()
    confidence = serializers.FloatField()
    observed_at = serializers.DateTimeField()
    disputed_by = _disputed_by()


class ProfileOutSerializer(serializers.Serializer):
    static = ProfileEntrySerializer(many=True)
    dynamic = ProfileEntrySerializer(many=True)


class CoreOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    kind = serializers.CharField()
    category = serializers.CharField()
    disputed_by = _disputed_by()


class ContextHitSerializer(SearchHitSerializer):
    disputed_by = _disputed_by()


class ComingUpSerializer(CoreOutSerializer):
    occurred_on = serializers.DateField(help_text="The day it is for (or the first of its span).")
    occurred_precision = serializers.ChoiceField(choices=["", *Precision.values])
    expires_at = serializers.DateTimeField(help_text="When it becomes past.")


class ContextOutSerializer(serializers.Serializer):
    profile = ProfileOutSerializer(
        required=False,
        help_text="The client's profile as data. With explain only: by default its entries "
        "are in `text`, as the agent reads them (and GET /api/v1/clients/{ref}/profile/ "
        "gives it alone).",
    )
    core = CoreOutSerializer(many=True)
    memories = ContextHitSerializer(many=True)
    coming_up = ComingUpSerializer(
        many=True,
        help_text="What the client said will happen or must be done in the next three "
        "weeks, nearest first: for the agent to raise unasked.",
    )
    text = serializers.CharField()


class ClientProfileOutSerializer(serializers.Serializer):
    client = serializers.CharField()
    profile = ProfileOutSerializer()
    core = CoreOutSerializer(many=True)


class ItemSerializer(serializers.Serializer):
    key = serializers.CharField()
    created_at = serializers.DateTimeField(help_text="When the key was first put.")
    updated_at = serializers.DateTimeField(help_text="When its newest version was put.")
    event = EventOutSerializer(help_text="The newest version, as it was put.")


class ItemsOutSerializer(serializers.Serializer):
    results = ItemSerializer(many=True)


class ItemDeletedSerializer(serializers.Serializer):
    key = serializers.CharField()
    forgotten = serializers.ListField(
        child=serializers.UUIDField(), help_text="The memories only its versions taught."
    )


class ClientSummarySerializer(serializers.Serializer):
    ref = serializers.CharField(help_text="The client's reference: `client` everywhere else.")
    display_name = serializers.CharField()
    language = serializers.CharField()
    created_at = serializers.DateTimeField()


class ClientListOutSerializer(serializers.Serializer):
    results = ClientSummarySerializer(many=True)
    next_offset = serializers.IntegerField(
        allow_null=True, help_text="The `offset` of the next page; null on the last."
    )
