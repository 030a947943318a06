"""What drf-spectacular does not know of memoryhub's API by itself: its authentication,
the rules of its strict inputs, and that a raw JSON Schema body with required properties
is a required body (the extensions register when the app config imports this module)."""

import re

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework.serializers import ListSerializer

from memories.conf import setting


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "memories.api.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "mh_<prefix>_<secret> (manage.py create_api_key)",
        }


class StrictSerializerScheme(OpenApiSerializerExtension):
    """Inputs refuse unknown fields (StrictSerializer): the schema says so, so a client
    generated from it, or a fuzzer, knows."""

    target_class = "memories.api.fields.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        for name, field in self.target.fields.items():
            if isinstance(field, ListSerializer) and name in schema.get("properties", {}):
                if not field.allow_empty:
                    schema["properties"][name]["minItems"] = 1
                if limit := getattr(self.target, "list_limits", {}).get(name):
                    schema["properties"][name]["maxItems"] = int(setting(limit))
        for name, limit in getattr(self.target, "text_limits", {}).items():
            schema["properties"][name]["maxLength"] = int(setting(limit))
        for name, field in schema.get("properties", {}).items():
            # drf-spectacular writes a blank-allowed string with a pattern as "this, or the
            # empty string"; "" then matches both, which oneOf refuses. Ours (no NUL)
            # accepts "" already: the first alone says it.
            variants = field.get("oneOf", [])
            if (
                len(variants) == 2
                and variants[1] == {"type": "string", "maxLength": 0}
                and "minLength" not in variants[0]
                and re.search(variants[0].get("pattern", ""), "")
            ):
                schema["properties"][name] = {**field.pop("oneOf")[0], **field}
        return schema


class StrictCharFieldScheme(OpenApiSerializerFieldExtension):
    """A strict string states the text it needs (``pattern``), so a valid-looking request
    that the API would refuse as blank, or for a NUL in it, is invalid by the schema too."""

    target_class = "memories.api.fields.StrictCharField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        schema["pattern"] = self.target.schema_pattern
        return schema


class OneOrManyFieldScheme(OpenApiSerializerFieldExtension):
    """A list that also takes a single value: ``"core"`` or ``["core", "recall"]``."""

    target_class = "memories.api.fields.OneOrManyField"

    def map_serializer_field(self, auto_schema, direction):
        many = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if self.target.max_length is not None:
            many["maxItems"] = self.target.max_length
        return {"anyOf": [many["items"], many]}


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular marks a body required from a serializer's required fields, never
    from a raw JSON Schema (the import's document): one with required properties is a
    required body too, as the API answers 400 without one."""

    def _get_request_for_media_type(self, serializer, direction="request"):
        schema, required = super()._get_request_for_media_type(serializer, direction)
        if isinstance(serializer, dict) and serializer.get("required"):
            required = True
        return schema, required
