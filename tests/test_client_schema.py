"""memoryhub-client is written by hand; these tests hold it to the OpenAPI schema the code
generates: every operation has a client method on the same route, and every typed dict
has the schema object's keys, with the same ones required."""

import typing

import pytest
from memoryhub_client._calls import ENDPOINTS
from memoryhub_client.async_client import AsyncMemoryHub
from memoryhub_client.client import MemoryHub
from memoryhub_client.types import SCHEMA_NAMES

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        return APIClient().get("/api/v1/schema/?format=json").json()


def test_every_operation_has_a_client_method_on_its_route(schema):
    operations = {
        operation["operationId"]: (method.upper(), path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    }
    assert {op: (method, path) for method, path, op in ENDPOINTS.values()} == operations
    for name in ENDPOINTS:
        assert callable(getattr(MemoryHub, name)), name
        assert callable(getattr(AsyncMemoryHub, name)), name


@pytest.mark.parametrize("typed", list(SCHEMA_NAMES), ids=lambda t: t.__name__)
def test_each_typed_dict_has_the_schema_objects_keys(schema, typed):
    component = schema["components"]["schemas"][SCHEMA_NAMES[typed]]
    hints = typing.get_type_hints(typed)
    assert set(hints) == set(component["properties"])
    assert set(typed.__required_keys__) == set(component.get("required", []))


def test_enums_match(schema):
    from memoryhub_client import types

    components = schema["components"]["schemas"]
    for literal, component in [
        (types.Source, "SourceEnum"),
        (types.Direction, "DirectionEnum"),
        (types.Status, "StatusEnum"),
        (types.Action, "ActionEnum"),
    ]:
        assert set(typing.get_args(literal)) == set(components[component]["enum"]), component
    filters = components["FiltersRequest"]["properties"]
    for literal, name in [(types.Tier, "tier"), (types.Kind, "kind")]:
        assert set(typing.get_args(literal)) == set(filters[name]["anyOf"][0]["enum"]), name
