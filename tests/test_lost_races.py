"""A transaction that loses a race with another (a deadlock PostgreSQL breaks by rolling it
back, a lock timeout) is not "the database is unavailable": an event is decided again by
the server, and what still fails answers 503 ``database_busy`` with ``Retry-After: 1``.

The races are real: another session holds the client's row, and the request's own session
waits for it on a real PostgreSQL."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from django.db import connection, transaction
from django.urls import reverse
from prometheus_client import REGISTRY

from memories.models import Client, Event
from tests.support import factories

pytestmark = pytest.mark.django_db(transaction=True)


def _retries(sqlstate: str) -> float:
    return (
        REGISTRY.get_sample_value("memoryhub_ingest_retries_total", {"sqlstate": sqlstate}) or 0.0
    )


class RowHolder:
    """Another session holding a client's row ``FOR NO KEY UPDATE`` (as a profile rebuild
    or a tier move does) until told to let go; with ``then_lock_client``, it then asks for
    the client's ingest lock (the advisory lock a writer holds) once a writer waits for the
    row: the two wait for each other."""

    def __init__(self, client: Client, *, then_lock_client: bool = False):
        self.client_id = str(client.pk)
        self.then_lock_client = then_lock_client
        self.holding, self.let_go = threading.Event(), threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._hold)
        self.thread.start()
        assert self.holding.wait(30)

    def _hold(self):
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT 1 FROM memories_client WHERE id = %s FOR NO KEY UPDATE",
                    [self.client_id],
                )
                self.holding.set()
                if self.then_lock_client:
                    self._until_a_writer_waits(cursor)
                    cursor.execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [self.client_id]
                    )
                else:
                    self.let_go.wait(60)
        except BaseException as exc:
            self.error = exc
        finally:
            connection.close()

    @staticmethod
    def _until_a_writer_waits(cursor) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.01)
        raise AssertionError("no writer came to wait for the row")

    def finish(self):
        self.let_go.set()
        self.thread.join(60)


def test_an_event_that_deadlocks_is_decided_again_and_stored_once(
    personas, api_client, agent_key, caplog
):
    before = _retries("40P01")
    holder = RowHolder(personas.client, then_lock_client=True)
    try:
        with caplog.at_level(logging.WARNING, logger="memories.services.write.ingest"):
            response = api_client.post(
                "/api/v1/events/",
                {
                    "client": "emma",
                    "speaker": "Emma",
                    "content": "I moved to Porto with my husband last spring.",
                    "external_id": "turn-7",
                },
                format="json",
                HTTP_AUTHORIZATION=f"Bearer {agent_key}",
            )
    finally:
        holder.finish()
    assert holder.error is None  # the other session was not the one rolled back
    assert response.status_code == 201, response.content
    assert [m["action"] for m in response.json()["memories"]] == ["added"]
    assert Event.objects.filter(client=personas.client, external_id="turn-7").count() == 1
    # What the rolled-back attempt had noted in memory was written by the one that stored.
    personas.client.refresh_from_db()
    assert personas.client.speakers == ["Emma"]
    assert _retries("40P01") == before + 1
    (warning,) = [r for r in caplog.records if "lost a race" in r.getMessage()]
    assert "40P01" in warning.getMessage()


@pytest.fixture
def short_lock_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '200ms'")
    yield
    with connection.cursor() as cursor:
        cursor.execute("RESET lock_timeout")


def test_an_event_that_keeps_losing_answers_database_busy_and_stores_nothing(
    personas, api_client, agent_key, short_lock_timeout
):
    before = _retries("55P03")
    holder = RowHolder(personas.client)
    try:
        response = api_client.post(
            "/api/v1/events/",
            {"client": "emma", "speaker": "Emma", "content": "I moved to Porto last spring."},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {agent_key}",
        )
    finally:
        holder.finish()
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {
        "error": {
            "code": "database_busy",
            "message": "Another change to the same data held this request up and it was "
            "rolled back; try it again.",
            "fields": {},
        }
    }
    assert _retries("55P03") == before + 2  # three attempts in all
    assert not Event.objects.filter(client=personas.client).exists()
    personas.client.refresh_from_db()
    assert personas.client.speakers == []

    # Once the other change is done, the same call goes through.
    again = api_client.post(
        "/api/v1/events/",
        {"client": "emma", "speaker": "Emma", "content": "I moved to Porto last spring."},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    )
    assert again.status_code == 201, again.content


def test_a_page_that_loses_a_race_says_busy_and_changes_nothing(
    personas, short_lock_timeout, client
):
    memory = factories.MemoryFactory.create(client=personas.client)
    client.force_login(personas.supervisor)
    holder = RowHolder(personas.client)
    try:
        response = client.post(
            reverse("memories:memory-tier", args=[memory.pk]),
            {"tier": "archival"},
            HTTP_HX_REQUEST="true",
        )
    finally:
        holder.finish()
    assert (response.status_code, response["Retry-After"]) == (503, "1")
    assert "<h1>memoryhub is busy</h1>" in response.content.decode()
    memory.refresh_from_db()
    assert memory.tier == "recall"
