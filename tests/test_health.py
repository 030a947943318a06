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


DETAILS = {"database", "pgvector", "embedding_providers", "queue"}


@pytest.mark.parametrize(
    ("persona", "role", "details"),
    [
        ("supervisor", "SUPERVISOR", True),
        ("admin", "ADMIN", True),
        ("advisor", "ADVISOR", False),
        ("client_user", "CLIENT", False),
        ("heir", "NEXTGEN_HEIR", False),
    ],
)
def test_the_details_are_for_who_operates_the_system(client, personas, persona, role, details):
    """Versions, providers and queue counts tell whoever holds a leaked agent or client key
    what to attack; those who see job runs and the audit trail operate the system."""
    user = getattr(personas, persona)
    api_key, raw = factories.api_key_for(user, personas.tenant)
    body = client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    caller = {"user": user.username, "tenant": "acme", "role": role, "key": api_key.prefix}
    if details:
        assert set(body) == {"status", "caller", *DETAILS}
        assert body["caller"] == caller
    else:
        assert body == {"status": "ok", "caller": caller}


def test_a_browser_session_gets_the_details_only_as_an_operator(client, personas):
    client.force_login(personas.advisor)
    assert set(client.get("/api/v1/health/").json()) == {"status", "caller"}
    client.force_login(personas.supervisor)
    assert set(client.get("/api/v1/health/").json()) == {"status", "caller", *DETAILS}
