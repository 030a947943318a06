"""The database cannot be reached: 503 with ``Retry-After`` and a plain message, never a
500, and no error text (socket paths, hosts) for the caller.

The database goes down for real: the default connection is swapped for one to a socket
directory where no server listens, so every query of the request tries to connect and
fails as it does when PostgreSQL is stopped. The test's own connection (and its
transaction) is put back afterwards."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.db import connections
from django.test import Client as PageClient

from tests.support import factories

pytestmark = pytest.mark.django_db


@contextmanager
def unreachable_database(socket_dir):
    working = connections["default"]
    down = working.__class__({**working.settings_dict, "HOST": str(socket_dir)}, "default")
    connections["default"] = down
    try:
        yield str(socket_dir)
    finally:
        connections["default"] = working
        down.close()


@pytest.fixture
def database_down(db, tmp_path):
    with unreachable_database(tmp_path) as socket_dir:
        yield socket_dir


UNAVAILABLE = {
    "error": {
        "code": "database_unavailable",
        "message": "The database is unavailable; try again in a moment.",
        "fields": {},
    }
}


def test_the_fixture_really_takes_the_database_away(database_down):
    from django.db import OperationalError, connection

    with pytest.raises(OperationalError, match="No such file or directory"):
        connection.ensure_connection()


def test_an_api_call_answers_503_with_retry_after(personas, api_client, tmp_path):
    _, raw = factories.api_key_for(personas.supervisor, personas.tenant)
    with unreachable_database(tmp_path) as socket_dir:
        response = api_client.post(
            "/api/v1/search/",
            {"client": "emma", "query": "email"},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {raw}",
        )
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response.json() == UNAVAILABLE
    assert socket_dir not in response.content.decode()


def test_health_tells_an_anonymous_caller_only_that_the_database_is_unavailable(
    api_client, database_down
):
    response = api_client.get("/api/v1/health/")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response.json() == {"status": "error", "caller": None}
    assert database_down not in response.content.decode()


def test_health_with_a_key_cannot_check_it_and_answers_as_to_anyone(personas, api_client, tmp_path):
    _, raw = factories.api_key_for(personas.supervisor, personas.tenant)
    with unreachable_database(tmp_path):
        response = api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "caller": None}


def test_a_page_answers_a_plain_503(database_down):
    page = PageClient()
    response = page.post("/login/", {"username": "supervisor", "password": "wrong"})
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Content-Type"] == "text/html; charset=utf-8"
    body = response.content.decode()
    assert "The database is unavailable; try again in a moment." in body
    assert database_down not in body


def test_a_signed_in_page_answers_a_plain_503(personas, tmp_path):
    page = PageClient()
    page.force_login(personas.advisor)  # while the database is up
    with unreachable_database(tmp_path):
        response = page.get("/clients/")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "The database is unavailable" in response.content.decode()
