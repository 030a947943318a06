"""The OpenAPI schema is generated from the code, validates, and documents every call."""

import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/v1/health/", "get"): "health",
    ("/api/v1/events/", "post"): "events_create",
    ("/api/v1/events/batch/", "post"): "events_batch",
    ("/api/v1/search/", "post"): "search",
    ("/api/v1/context/", "post"): "context",
    ("/api/v1/memories/", "get"): "memories_list",
    ("/api/v1/memories/{memory_id}/", "get"): "memory_retrieve",
    ("/api/v1/memories/{memory_id}/", "delete"): "memory_forget",
    ("/api/v1/memories/{memory_id}/feedback/", "post"): "memory_feedback",
    ("/api/v1/memories/{memory_id}/history/", "get"): "memory_history",
    ("/api/v1/tools/", "get"): "tools",
    ("/api/v1/review/{item_id}/decide/", "post"): "review_decide",
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
    assert set(search["responses"]) == {"200", "400", "401", "403", "404"}


def test_swagger_ui_is_served_from_the_app(client):
    page = client.get("/api/v1/docs/")
    assert page.status_code == 200
    assert b"swagger-ui" in page.content
    assert b"cdn" not in page.content.lower()  # the UI's files ship with the app
