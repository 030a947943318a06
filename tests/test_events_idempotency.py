"""An ``external_id`` names one event. Posted again with the same content it replays the
answer (``Idempotent-Replayed: true``, nothing stored); with other content it is a
conflict (409 ``idempotency_conflict``), never new text silently dropped. A batch is all or
nothing, so one such event refuses the batch, naming it."""

import pytest

from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client, agent_key):
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    return api_client


def _post(api, **body):
    return api.post("/api/v1/events/", {"client": "emma", **body}, format="json")


def _message(external_id: str) -> str:
    return (
        f"external_id {external_id!r} already names an event of client 'emma' with other "
        "content: an external_id names one event, so post new content under a new one (the "
        "same content again is a replay)."
    )


def test_the_same_content_again_replays(api):
    first = _post(api, content="I prefer email.", external_id="m-1")
    before = take()

    again = _post(api, content="I prefer email.", external_id="m-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert take().changes(before) == []


def test_other_content_under_the_same_external_id_is_a_conflict(api):
    first = _post(api, content="I prefer email.", external_id="m-1")
    before = take()

    again = _post(api, content="I prefer phone calls now.", external_id="m-1")

    assert first.status_code == 201
    assert again.status_code == 409
    assert "Idempotent-Replayed" not in again
    assert again.json()["error"] == {
        "code": "idempotency_conflict",
        "message": _message("m-1"),
        "fields": {"external_id": [_message("m-1")]},
    }
    assert take().changes(before) == []


def test_in_a_batch_the_conflict_refuses_everything_and_names_the_event(api):
    _post(api, content="I prefer email.", external_id="m-1")
    _post(api, content="I live in Leeds.", external_id="m-2")
    before = take()
    events = [
        {"client": "emma", "content": "I like golf.", "external_id": "m-3"},  # new
        {"client": "emma", "content": "I live in Leeds.", "external_id": "m-2"},  # a replay
        {"client": "emma", "content": "I prefer post.", "external_id": "m-4"},  # new
        {"client": "emma", "content": "I prefer phone.", "external_id": "m-1"},  # a conflict
    ]

    response = api.post("/api/v1/events/batch/", {"events": events}, format="json")

    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "idempotency_conflict",
        "message": _message("m-1"),
        "fields": {"events[3].external_id": [_message("m-1")]},
    }
    assert take().changes(before) == []


def test_a_batch_of_replays_with_the_same_content_answers_as_before(api):
    events = [
        {"client": "emma", "content": "I live in Leeds.", "external_id": "m-2"},
        {"client": "emma", "content": "I prefer email.", "external_id": "m-1"},
    ]
    first = api.post("/api/v1/events/batch/", {"events": events}, format="json")
    before = take()

    again = api.post("/api/v1/events/batch/", {"events": events}, format="json")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert take().changes(before) == []


def test_content_that_cleans_to_the_same_text_is_the_same(api):
    """Content is compared as stored: cleaned (NFC, single spaces, trimmed)."""
    first = _post(api, content="I prefer email.", external_id="m-1")

    again = _post(api, content="  I prefer   email. ", external_id="m-1")

    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
