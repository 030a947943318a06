"""OpenAPI description of memoryhub's own authentication (imported by the app config)."""

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
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
        return schema


class StrictCharFieldScheme(OpenApiSerializerFieldExtension):
    """A strict string states the text it needs (``pattern``), so a valid-looking request
    that the API would refuse as blank is invalid by the schema too."""

    target_class = "memories.api.fields.StrictCharField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if self.target.schema_pattern:
            schema["pattern"] = self.target.schema_pattern
        return schema


class OneOrManyFieldScheme(OpenApiSerializerFieldExtension):
    """A list that also takes a single value: ``"core"`` or ``["core", "recall"]``."""

    target_class = "memories.api.fields.OneOrManyField"

    def map_serializer_field(self, auto_schema, direction):
        many = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {"anyOf": [many["items"], many]}
