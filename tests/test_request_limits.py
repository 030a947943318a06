"""Size limits: a body over MEMORYHUB_MAX_REQUEST_BYTES is a 413 in the error format on
every call that takes one; a batch or a field over its own limit is a 400 naming it. In
every case nothing is stored."""

import pytest

from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db

LIMIT = 20_000
BIG = "x" * (LIMIT + 1)


@pytest.fixture
def used_key(api_client, agent_key):
    """The advisor's key, used once already (its first use is recorded, which is a
    change of its own, before any snapshot is taken)."""
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    return agent_key


@pytest.fixture
def small_bodies(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT


def _post(api_client, key, url, body, method="post"):
    return getattr(api_client, method)(url, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", "/api/v1/events/", {"client": "emma", "content": BIG}),
        ("post", "/api/v1/events/batch/", {"events": [{"client": "emma", "content": BIG}]}),
        ("post", "/api/v1/search/", {"client": "emma", "query": BIG}),
        ("post", "/api/v1/context/", {"client": "emma", "message": BIG}),
        ("post", "/api/v1/memories/{memory}/feedback/", {"useful": True, "note": BIG}),
        ("delete", "/api/v1/memories/{memory}/", {"reason": BIG}),
    ],
)
def test_a_body_over_the_limit_is_413_and_stores_nothing(
    api_client, used_key, personas, small_bodies, method, url, body
):
    memory = factories.MemoryFactory.create(client=personas.client)
    with unchanged():
        response = _post(api_client, used_key, url.format(memory=memory.pk), body, method)
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "code": "too_large",
            "message": f"The request body is larger than {LIMIT} bytes.",
            "fields": {},
        }
    }


def test_the_default_limit_is_five_megabytes(settings):
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 5 * 1024 * 1024


def test_a_batch_over_its_limit_names_the_field(api_client, used_key, personas, settings):
    settings.MEMORYHUB = {"MAX_BATCH_EVENTS": 3}
    events = [{"client": "emma", "content": f"Fact {n}."} for n in range(4)]
    with unchanged():
        response = _post(api_client, used_key, "/api/v1/events/batch/", {"events": events})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "events": ["A batch holds at most 3 events; this one has 4."]
    }


def test_an_empty_batch_names_the_field(api_client, used_key, personas):
    with unchanged():
        response = _post(api_client, used_key, "/api/v1/events/batch/", {"events": []})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"events": ["This list may not be empty."]}


def test_content_over_its_limit_in_a_batch_names_the_item(api_client, used_key, personas, settings):
    settings.MEMORYHUB = {"MAX_EVENT_CHARS": 100}
    events = [
        {"client": "emma", "content": "Short."},
        {"client": "emma", "content": "y" * 101},
    ]
    with unchanged():
        response = _post(api_client, used_key, "/api/v1/events/batch/", {"events": events})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "events[1].content": ["Content is 101 characters long; the limit is 100."]
    }


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/events/", {"client": "emma", "content": "Hi.", "metadata": {"k": "v" * 17_000}},
         "metadata"),
        ("/api/v1/search/", {"client": "emma", "query": "q" * 4001}, "query"),
        ("/api/v1/context/", {"client": "emma", "message": "m" * 8001}, "message"),
        ("/api/v1/search/", {"client": "emma", "query": "q", "k": 101}, "k"),
        ("/api/v1/search/", {"client": "emma", "query": "q", "filters": {"tags": ["t"] * 21}},
         "filters.tags"),
    ],
)  # fmt: skip
def test_a_field_over_its_limit_is_named(api_client, used_key, personas, url, body, field):
    with unchanged():
        response = _post(api_client, used_key, url, body)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_context_message_at_its_limit_is_answered(api_client, used_key, personas):
    response = _post(
        api_client, used_key, "/api/v1/context/", {"client": "emma", "message": "m" * 8000}
    )
    assert response.status_code == 200
