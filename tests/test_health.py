import pytest

from tests.support import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_client(api_client, personas):
    """With a supervisor's key: the report is for callers with a key."""
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api_client


def test_an_anonymous_caller_gets_the_status_alone(client):
    """A probe needs the status; versions, models and queue counts are for the operator."""
    response = client.get("/api/v1/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "caller": None}


def test_health_reports_database_pgvector_providers_and_queue(api_client):
    response = api_client.get("/api/v1/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert int(body["database"]["version"].split(".")[0]) >= 15
    assert body["pgvector"]["installed"] is True
    major, minor = (int(p) for p in body["pgvector"]["version"].split(".")[:2])
    assert (major, minor) >= (0, 8)
    assert body["embedding_providers"][0]["name"] == "local"
    assert body["embedding_providers"][0]["configured"] is True
    assert body["embedding_providers"][0]["circuit"] == "closed"
    assert body["queue"]["broker"] == "orm"
    assert body["queue"]["sync"] is True
    assert body["queue"]["queued"] == 0
    assert body["caller"]["role"] == "SUPERVISOR"


def test_health_reports_a_provider_without_its_key(api_client, settings):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage", "local"]
    settings.VOYAGE_API_KEY = ""
    body = api_client.get("/api/v1/health/").json()
    assert body["embedding_providers"][0] == {
        "name": "voyage",
        "position": 0,
        "model": "voyage-3-large",
        "dimension": 1024,
        "configured": False,
        "circuit": None,
        "detail": "VOYAGE_API_KEY is not set",
    }
    assert body["status"] == "ok"


def test_health_is_degraded_when_no_provider_can_embed(api_client, settings):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["openai-large"]
    settings.OPENAI_API_KEY = ""
    assert api_client.get("/api/v1/health/").json()["status"] == "degraded"
