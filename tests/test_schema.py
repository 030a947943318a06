"""The OpenAPI schema is generated from the code, validates, and documents every call."""

import io
import re

import pytest
from django.core.management import call_command

from memories.api.fields import CLIENT_REF_PATTERN, HAS_VISIBLE_TEXT
from memories.services.webhooks.endpoints import URL_PATTERN

pytestmark = pytest.mark.django_db

PROBES = {"/api/v1/health/live", "/api/v1/health/ready"}
OPERATIONS = {
    ("/api/v1/clients/{ref}/", "delete"): "client_erase",
    ("/api/v1/clients/{ref}/", "put"): "client_put",
    ("/api/v1/clients/{ref}/advisors/", "get"): "client_advisors",
    ("/api/v1/clients/{ref}/advisors/", "put"): "client_advisors_set",
    ("/api/v1/clients/{ref}/export/", "get"): "client_export",
    ("/api/v1/clients/", "get"): "clients_list",
    ("/api/v1/clients/", "post"): "client_import",
    ("/api/v1/health/", "get"): "health",
    ("/api/v1/health/live", "get"): "health_live",
    ("/api/v1/health/ready", "get"): "health_ready",
    ("/api/v1/events/", "post"): "events_create",
    ("/api/v1/events/batch/", "post"): "events_batch",
    ("/api/v1/search/", "post"): "search",
    ("/api/v1/context/", "post"): "context",
    ("/api/v1/clients/{ref}/profile/", "get"): "client_profile",
    ("/api/v1/memories/", "get"): "memories_list",
    ("/api/v1/memories/{memory_id}/", "get"): "memory_retrieve",
    ("/api/v1/memories/{memory_id}/", "delete"): "memory_forget",
    ("/api/v1/memories/{memory_id}/feedback/", "post"): "memory_feedback",
    ("/api/v1/memories/{memory_id}/history/", "get"): "memory_history",
    ("/api/v1/tools/", "get"): "tools",
    ("/api/v1/review/", "get"): "review_list",
    ("/api/v1/review/{item_id}/", "get"): "review_retrieve",
    ("/api/v1/review/{item_id}/decide/", "post"): "review_decide",
    ("/api/v1/webhooks/", "get"): "webhooks_list",
    ("/api/v1/webhooks/", "post"): "webhooks_create",
    ("/api/v1/webhooks/{endpoint_id}/", "delete"): "webhooks_delete",
    ("/api/v1/items/", "get"): "items_list",
    ("/api/v1/items/", "delete"): "item_delete",
}


def test_schema_generates_without_warnings(tmp_path):
    call_command(
        "spectacular",
        validate=True,
        fail_on_warn=True,
        file=str(tmp_path / "schema.yaml"),
        stderr=io.StringIO(),
    )
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3.")


def test_schema_endpoint_documents_every_operation(api_client):
    response = api_client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    found = {
        (path, method): operation["operationId"]
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    }
    assert found == OPERATIONS
    assert schema["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    search = schema["paths"]["/api/v1/search/"]["post"]
    assert set(search["responses"]) == {"200", "400", "401", "403", "404", "413", "429"}


def _schema(api_client):
    return api_client.get("/api/v1/schema/?format=json").json()


@pytest.mark.parametrize(("path", "method"), sorted(OPERATIONS))
def test_every_operation_has_request_and_response_examples(api_client, path, method):
    operation = _schema(api_client)["paths"][path][method]
    if "requestBody" in operation:
        assert operation["requestBody"]["content"]["application/json"]["examples"]
    for parameter in operation.get("parameters", []):
        if parameter.get("required"):
            assert parameter.get("examples"), parameter["name"]
    for status, response in operation["responses"].items():
        if "content" in response:
            assert response["content"]["application/json"]["examples"], status
    errors = [s for s in operation["responses"] if s.startswith("4")]
    if path in PROBES:
        # Liveness and readiness authenticate nobody and count nothing: no 401, no 429.
        assert errors == []
    else:
        assert "401" in errors and "429" in errors


def test_errors_are_documented_with_the_one_error_format(api_client):
    schema = _schema(api_client)
    error = schema["components"]["schemas"]["Error"]
    assert error["properties"] == {"error": {"$ref": "#/components/schemas/ErrorBody"}}
    responses = schema["paths"]["/api/v1/events/"]["post"]["responses"]
    example = responses["429"]["content"]["application/json"]["examples"]["429"]["value"]
    assert example["error"]["code"] == "throttled"


def test_schema_patterns_match_what_the_api_trims():
    """The patterns the schema states agree with the code, character by character (NUL,
    which no text may hold, is in neither)."""
    from memories.api.fields import HAS_TEXT, NOT_BLANK
    from memories.text import clean

    for char in map(chr, range(1, 0x3100)):
        assert bool(re.search(NOT_BLANK, char)) == bool(char.strip()), hex(ord(char))
        assert bool(re.search(HAS_TEXT, char)) == bool(clean(char)), hex(ord(char))
    assert re.search(NOT_BLANK, "\x00") is None
    assert re.search(HAS_TEXT, "\x00") is None


# A trimmed text that must hold more than whitespace, and never a NUL.
NOT_BLANK_TEXT = (
    "^[^\\x00]*[^\\x00\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680"
    "\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00]*$"
)
# Content: a character that shows (not whitespace, control, zero-width or filler), and
# never a NUL.
CONTENT_TEXT = f"^[^\\x00]*{HAS_VISIBLE_TEXT}[^\\x00]*$"
NO_NUL = "^[^\\x00]*$"


def test_every_text_field_says_it_refuses_nul(api_client):
    components = _schema(api_client)["components"]["schemas"]
    event = components["EventInRequest"]["properties"]
    # A new client's reference names it in URLs: no "/", not "." or "..".
    assert event["client"] == {
        "type": "string",
        "minLength": 1,
        "pattern": CLIENT_REF_PATTERN,
        "maxLength": 200,
    }
    assert event["content"] == {
        "type": "string",
        "minLength": 1,
        "description": "What was said or observed: text (not only whitespace, control or "
        "zero-width characters, and no NUL), at most MAX_EVENT_CHARS (65,536) characters.",
        "pattern": CONTENT_TEXT,
        "maxLength": 65536,
    }
    assert components["FeedbackInRequest"]["properties"]["note"] == {
        "type": "string",
        "default": "",
        "pattern": NO_NUL,
        "maxLength": 500,
    }
    strings = [
        (name, field)
        for component in components.values()
        if component.get("additionalProperties") is False  # the inputs
        for name, field in component["properties"].items()
        if field.get("type") == "string" and "format" not in field and "enum" not in field
    ]
    assert len(strings) == 19
    assert [
        name for name, field in strings if field["pattern"] not in (NOT_BLANK_TEXT, NO_NUL)
    ] == ["client", "content", "url"]
    assert components["WebhookInRequest"]["properties"]["url"]["pattern"] == URL_PATTERN


@pytest.mark.parametrize(
    ("value", "client", "content", "note"),
    [
        ("emma", True, True, True),
        ("  emma \t", True, True, True),
        ("", False, False, True),
        (" \u3000\n", False, False, True),
        ("\x01\x7f", True, False, True),
        ("\x01 emma", True, True, True),
        ("emma\x00", False, False, False),
        ("\x00emma", False, False, False),
        ("em\x00ma", False, False, False),
        ("\x00", False, False, False),
    ],
)
def test_the_stated_patterns_accept_what_the_api_accepts(value, client, content, note):
    from memories.api.inputs import EventInSerializer, FeedbackInSerializer

    def api_accepts(serializer, body, field):
        checked = serializer(data=body)
        return checked.is_valid() or field not in checked.errors

    assert api_accepts(EventInSerializer, {"client": value, "content": "x"}, "client") is client
    assert api_accepts(EventInSerializer, {"client": "c", "content": value}, "content") is content
    assert api_accepts(FeedbackInSerializer, {"useful": True, "note": value}, "note") is note
    assert (re.search(NOT_BLANK_TEXT, value) is not None) is client
    assert (re.search(CONTENT_TEXT, value) is not None) is content
    assert (re.search(NO_NUL, value) is not None) is note


def test_swagger_ui_is_served_from_the_app(client):
    page = client.get("/api/v1/docs/")
    assert page.status_code == 200
    assert b"swagger-ui" in page.content
    # The UI's files ship with the app: every script, style and icon is a local path. (A
    # bare "cdn" search failed now and then on the page's random CSRF token.)
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.content.decode())
    # and its start-up script comes from the view itself (?script): no inline script (CSP);
    # "/" is the way back to the app.
    assert sources and all(
        s.startswith("/static/") or s in ("/api/v1/docs/?script=", "/") for s in sources
    ), sources
    assert "/api/v1/docs/?script=" in sources


def test_every_limit_and_rule_the_api_enforces_is_stated(api_client):
    schema = _schema(api_client)
    paths, components = schema["paths"], schema["components"]["schemas"]
    client_text = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": NOT_BLANK_TEXT}
    (client,) = [
        p for p in paths["/api/v1/memories/"]["get"]["parameters"] if p["name"] == "client"
    ]
    assert client["schema"] == client_text
    for path, method in (
        ("/api/v1/clients/{ref}/", "delete"),
        ("/api/v1/clients/{ref}/export/", "get"),
    ):
        (ref,) = paths[path][method]["parameters"]
        assert ref["schema"] == {**client_text, "pattern": CLIENT_REF_PATTERN}
    for path, method, name in (
        ("/api/v1/memories/{memory_id}/", "get", "memory_id"),
        ("/api/v1/memories/{memory_id}/history/", "get", "memory_id"),
        ("/api/v1/review/{item_id}/", "get", "item_id"),
        ("/api/v1/review/{item_id}/decide/", "post", "item_id"),
    ):
        (parameter,) = paths[path][method]["parameters"]
        assert (parameter["name"], parameter["schema"]) == (
            name,
            {"type": "string", "format": "uuid"},
        )
    assert paths["/api/v1/clients/"]["post"]["requestBody"]["required"] is True
    filters = components["FiltersRequest"]["properties"]
    assert filters["since"]["description"] == (
        "Only memories observed at or after this time. Not after `until`: `since` > `until` "
        "is refused (400). From 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z (in UTC)."
    )
    assert filters["until"]["description"] == (
        "Only memories observed at or before this time. Not before `since`. From "
        "1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z (in UTC)."
    )
    assert filters["happened_until"]["description"] == (
        "Only what happened on or before this day. Not before `happened_since`. From "
        "1900-01-01 to 9999-12-31."
    )
    assert [filters[name]["anyOf"][1]["maxItems"] for name in ("tags", "speaker")] == [20, 20]
    assert components["EventInRequest"]["properties"]["observed_at"]["description"] == (
        "When it happened (ISO 8601; default now). Not in the future: a time more than five "
        "minutes ahead of the server's clock is refused (400). From 1900-01-01T00:00:00Z to "
        "9999-12-31T23:59:59Z (in UTC)."
    )
    assert components["BatchInRequest"]["properties"]["events"]["maxItems"] == 500
    assert components["DecisionInRequest"]["properties"]["decision"]["description"].startswith(
        "keep_old, accept_new, keep_both or merge for a conflict; approve or reject for a "
        "promotion. A decision the item's type does not take is refused (400)."
    )
    assert schema["info"]["description"].endswith(
        "No text may contain a NUL character (U+0000), which PostgreSQL cannot store: a "
        "request with one is refused."
    )


def test_the_import_reads_what_the_export_answers_and_states_nul(api_client):
    paths = _schema(api_client)["paths"]
    document = paths["/api/v1/clients/"]["post"]["requestBody"]["content"]["application/json"]
    export = paths["/api/v1/clients/{ref}/export/"]["get"]["responses"]["200"]["content"]
    assert export["application/json"]["schema"] == document["schema"]
    client = document["schema"]["properties"]["client"]["properties"]
    assert client["external_ref"] == {
        "type": "string",
        "maxLength": 200,
        "pattern": "^[^\\x00]*\\S[^\\x00]*$",
    }
    assert client["display_name"] == {"type": "string", "maxLength": 200, "pattern": NO_NUL}
    event = document["schema"]["properties"]["events"]["items"]["properties"]
    assert event["metadata"] == {
        "type": "object",
        "description": "Any JSON, with no NUL character in it.",
    }


def _link(operation, **parameters):
    return {"operationId": operation, "parameters": parameters}


def test_answers_link_to_the_calls_that_take_their_ids(api_client):
    paths = _schema(api_client)["paths"]

    def links(path, method, status):
        found = paths[path][method]["responses"][status]["links"]
        return {
            name: {k: v for k, v in link.items() if k != "description"}
            for name, link in found.items()
        }

    first_memory = "$response.body#/memories/0/id"
    assert links("/api/v1/events/", "post", "201") == {
        "memory_retrieve": _link("memory_retrieve", memory_id=first_memory),
        "memory_history": _link("memory_history", memory_id=first_memory),
        "memory_feedback": _link("memory_feedback", memory_id=first_memory),
        "memory_forget": _link("memory_forget", memory_id=first_memory),
        "memories_list": _link("memories_list", client="$response.body#/event/client"),
        "client_export": _link("client_export", ref="$response.body#/event/client"),
        "client_profile": _link("client_profile", ref="$response.body#/event/client"),
        "client_erase": _link("client_erase", ref="$response.body#/event/client"),
    }
    assert links("/api/v1/review/", "get", "200") == {
        "review_retrieve": _link("review_retrieve", item_id="$response.body#/results/0/id"),
        "review_decide": _link("review_decide", item_id="$response.body#/results/0/id"),
    }
    assert links("/api/v1/memories/{memory_id}/", "get", "200") == {
        "memory_history": _link("memory_history", memory_id="$response.body#/id"),
        "memory_feedback": _link("memory_feedback", memory_id="$response.body#/id"),
        "memory_forget": _link("memory_forget", memory_id="$response.body#/id"),
    }
    assert links("/api/v1/clients/{ref}/export/", "get", "200") == {
        "review_decide": _link("review_decide", item_id="$response.body#/review_items/0/id"),
        "client_erase": _link("client_erase", ref="$response.body#/client/external_ref"),
        "client_import": {"operationId": "client_import", "requestBody": "$response.body"},
    }
    linked = {
        (path, method)
        for path, item in paths.items()
        for method, operation in item.items()
        for response in operation["responses"].values()
        if response.get("links")
    }
    # Every operation that answers ids or references links on, but health, its probes and
    # tools, and the erasure and the webhook removal, which leave nothing to go on with.
    assert len(linked) == len(OPERATIONS) - 4 - 2
    assert ("/api/v1/health/", "get") not in linked
