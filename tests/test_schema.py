"""The OpenAPI schema is generated from the code, validates, and documents every call."""

import io
import re

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/v1/clients/{ref}/", "delete"): "client_erase",
    ("/api/v1/clients/{ref}/export/", "get"): "client_export",
    ("/api/v1/clients/", "post"): "client_import",
    ("/api/v1/health/", "get"): "health",
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
    assert "401" in errors and "429" in errors


def test_errors_are_documented_with_the_one_error_format(api_client):
    schema = _schema(api_client)
    error = schema["components"]["schemas"]["Error"]
    assert error["properties"] == {"error": {"$ref": "#/components/schemas/ErrorBody"}}
    responses = schema["paths"]["/api/v1/events/"]["post"]["responses"]
    example = responses["429"]["content"]["application/json"]["examples"]["429"]["value"]
    assert example["error"]["code"] == "throttled"


def test_schema_patterns_match_what_the_api_trims():
    """The patterns the schema states agree with the code, character by character."""
    import re

    from memories.api.fields import HAS_TEXT, NOT_BLANK
    from memories.text import clean

    for char in map(chr, range(0x3100)):
        assert bool(re.search(NOT_BLANK, char)) == bool(char.strip()), hex(ord(char))
        assert bool(re.search(HAS_TEXT, char)) == bool(clean(char)), hex(ord(char))


def test_swagger_ui_is_served_from_the_app(client):
    page = client.get("/api/v1/docs/")
    assert page.status_code == 200
    assert b"swagger-ui" in page.content
    # The UI's files ship with the app: every script, style and icon is a local path. (A
    # bare "cdn" search failed now and then on the page's random CSRF token.)
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.content.decode())
    # and its start-up script comes from the view itself (?script): no inline script (CSP)
    assert sources and all(
        s.startswith("/static/") or s == "/api/v1/docs/?script=" for s in sources
    ), sources
    assert "/api/v1/docs/?script=" in sources
