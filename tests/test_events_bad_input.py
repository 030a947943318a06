"""Bad input gets a 4xx that names the problem, and nothing is stored."""

import pytest

from memories.models import Client, Event, Memory
from tests.support import factories

pytestmark = pytest.mark.django_db


def _counts():
    return (Event.objects.count(), Memory.objects.count(), Client.objects.count())


def _post(api_client, key, body, url="/api/v1/events/"):
    return api_client.post(url, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")


VALID = {"client": "emma", "content": "I live in Bristol."}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"client": None}, "client", "This field may not be null."),
        ({"content": None}, "content", "This field may not be null."),
        ({"content": ""}, "content", "This field may not be blank."),
        ({"content": " \n\t "}, "content", "Content is empty once whitespace is removed."),
        ({"content": "x" * 1_000_000}, "content", "Content is 1000000 characters long;"),
        ({"content": 42}, "content", "Not a valid string."),
        ({"content": "I live\x00 in Bristol."}, "content", "Null characters are not allowed."),
        ({"observed_at": "yesterday"}, "observed_at", "Datetime has wrong format."),
        ({"observed_at": "2999-01-01T00:00:00Z"}, "observed_at", "observed_at is in the future."),
        ({"source": "email"}, "source", '"email" is not a valid choice.'),
        ({"metadata": ["a"]}, "metadata", "metadata must be a JSON object."),
        ({"metadata": {"k": "v\x00"}}, "metadata", "Null characters are not allowed."),
        ({"clinet": "emma"}, "clinet", "Unknown field."),
        ({"external_id": "x" * 201}, "external_id", "no more than 200 characters"),
    ],
)
def test_bad_field_is_named_and_nothing_is_stored(api_client, agent_key, change, field, message):
    before = _counts()
    body = {**VALID, **change}
    if body.get("client") is None and "client" in change:
        body["client"] = None
    response = _post(api_client, agent_key, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]
    assert message in " ".join(error["fields"][field])
    assert field in error["message"]
    assert _counts() == before


def test_missing_fields_are_named(api_client, agent_key):
    response = _post(api_client, agent_key, {})
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"client", "content"}


def test_a_body_that_is_not_json_is_refused(api_client, agent_key):
    response = api_client.post(
        "/api/v1/events/",
        "{not json",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    )
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["error"]["message"]


def test_no_key_no_write(api_client, personas):
    before = _counts()
    response = api_client.post("/api/v1/events/", VALID, format="json")
    assert response.status_code == 401
    assert _counts() == before


def test_another_advisors_client_is_not_found(api_client, personas):
    _, key = factories.api_key_for(personas.advisor2, personas.tenant)
    before = _counts()
    response = _post(api_client, key, VALID)  # emma is the first advisor's client
    assert response.status_code == 404
    assert response.json()["error"]["message"].startswith(
        "Client 'emma' is not among your clients."
    )
    assert _counts() == before


@pytest.mark.parametrize("persona", ["client_user", "heir"])
def test_read_only_personas_cannot_write(api_client, personas, persona):
    _, key = factories.api_key_for(getattr(personas, persona), personas.tenant)
    before = _counts()
    for ref in ("emma", "marco", "someone-new"):
        response = _post(api_client, key, {**VALID, "client": ref})
        assert response.status_code in (403, 404)
    assert _counts() == before


def test_a_bad_batch_stores_nothing(api_client, agent_key, personas):
    before = _counts()
    response = _post(
        api_client,
        agent_key,
        {"events": [VALID, {"client": "emma", "content": ""}, VALID]},
        url="/api/v1/events/batch/",
    )
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["events[1].content"]
    assert _counts() == before


def test_a_batch_with_a_forbidden_client_stores_nothing(api_client, agent_key, personas):
    before = _counts()
    response = _post(
        api_client,
        agent_key,
        {"events": [VALID, {"client": "carlos", "content": "I live in Madrid."}]},
        url="/api/v1/events/batch/",
    )
    assert response.status_code == 404
    assert _counts() == before


def test_a_batch_is_limited(api_client, agent_key, personas, settings):
    settings.MEMORYHUB = {"MAX_BATCH_EVENTS": 3}
    response = _post(api_client, agent_key, {"events": [VALID] * 4}, url="/api/v1/events/batch/")
    assert response.status_code == 400
    assert "at most 3 events; this one has 4" in response.json()["error"]["message"]


def test_a_batch_may_not_repeat_an_external_id(api_client, agent_key, personas):
    item = {**VALID, "external_id": "x"}
    response = _post(api_client, agent_key, {"events": [item, item]}, url="/api/v1/events/batch/")
    assert response.status_code == 400
    assert "appears twice" in response.json()["error"]["message"]


def test_a_body_over_the_size_limit_is_413_json(api_client, agent_key, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    before = _counts()
    response = _post(api_client, agent_key, {**VALID, "content": "x" * 200_000})
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "code": "too_large",
            "message": "The request body is larger than 100000 bytes.",
            "fields": {},
        }
    }
    assert _counts() == before


def test_an_unknown_api_url_answers_json(api_client, agent_key):
    response = api_client.get("/api/v1/nothing-here/", HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
