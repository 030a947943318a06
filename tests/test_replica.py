"""Reads on a real streaming replica: a hot standby of this test's PostgreSQL, made with
``pg_basebackup`` and replaying two seconds behind, beside the production server
(``manage.py serve``, two web processes) configured with ``MEMORYHUB_REPLICA_URL``.

- A caller that writes and reads at once reads its write (the replica has not replayed
  it yet: the read goes to the primary), whichever web process answers.
- Searches of a caller that wrote nothing read from the replica: the standby's own
  statement log shows the search statement, and ``/metrics`` counts the reads there.
- The standby stopped while searches run costs no request; readiness and metrics say it
  is down, and reads go on from the primary.
- A write mark cookie that is not a number (any script's digits, "①") is no mark.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from tests.support import factories
from tests.support.live import database_url, free_port, stop_groups
from tests.support.standby import standby_of

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 120.0
METRICS_TOKEN = "replica-test"
STATEMENTS = [  # what is said, a question about it, a word its memory has
    ("I play the cello every Sunday.", "Which instrument does she play?", "cello"),
    ("My brother Marco lives in Lugano.", "Who lives in Lugano?", "Marco"),
    ("I keep my savings at Banca Stato.", "Where are her savings?", "Banca Stato"),
]

pytestmark = pytest.mark.django_db(transaction=True)


def _call(port: int, method: str, path: str, key: str = "", body=None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        conn.request(method, path, body=json.dumps(body) if body else None, headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def _page(port: int, method: str, path: str, jar: dict, form: dict | None = None) -> int:
    """A browser's request: ``jar`` keeps the cookies it is given."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        for cookie in answer.headers.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            jar[name] = value
        return answer.status
    finally:
        conn.close()


def _search(port: int, key: str, query: str) -> list[str]:
    status, text = _call(
        port, "POST", "/api/v1/search/", key, {"client": "emma", "query": query, "k": 5}
    )
    assert status == 200, text
    return [hit["content"] for hit in json.loads(text)["results"]]


def _metric(port: int, name: str, **labels: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    text = conn.getresponse().read().decode()
    conn.close()
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _wait_ready(port: int, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()
        try:
            if _call(port, "GET", "/api/v1/health/ready")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError("not ready:\n" + log.read_text())


def _serve(standby, tmp_path: Path) -> tuple[int, subprocess.Popen, Path]:
    """The production server on the test database, reading on ``standby``: its port, its
    process and its log (the caller waits for it and stops it)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "MEMORYHUB_REPLICA_URL": standby.url(),
        "MEMORYHUB_DATA_DIR": str(tmp_path / "data"),
        "MEMORYHUB_WEB_WORKERS": "2",
        "MEMORYHUB_WEB_THREADS": "2",
        "MEMORYHUB_LOCAL_EMBEDDER_THREADS": "1",
        "MEMORYHUB_METRICS_TOKEN": METRICS_TOKEN,
        "MEMORYHUB_SECRET_KEY": "replica-test-only",
        "MEMORYHUB_HTTPS": "false",
        "MEMORYHUB_THROTTLE_READ": "off",
        "MEMORYHUB_THROTTLE_WRITE": "off",
        "MEMORYHUB_ACCESS_LOG": "false",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    port = free_port()
    log = tmp_path / "serve.log"
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, str(ROOT / "manage.py"), "serve", f"127.0.0.1:{port}",
         "--no-demo", "--no-worker"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    return port, server, log


@pytest.fixture
def standby():
    standby = standby_of(connection.settings_dict, apply_delay_ms=2000)
    yield standby
    standby.remove()


def test_reads_go_to_the_replica_and_a_callers_own_writes_are_read_back(
    personas, standby, tmp_path
):
    _, writer = factories.api_key_for(personas.supervisor, personas.tenant)
    _, reader = factories.api_key_for(personas.supervisor, personas.tenant)
    port, server, log = _serve(standby, tmp_path)
    try:
        _wait_ready(port, server, log)
        status, text = _call(port, "GET", "/api/v1/health/ready")
        assert json.loads(text) == {"status": "ready", "database": "ok", "replica": "ok"}

        # Read-your-writes: the replica replays two seconds behind, so each of these reads
        # follows a write it has not replayed yet; the caller still reads what it wrote.
        for n, (statement, question, word) in enumerate(STATEMENTS):
            status, text = _call(
                port,
                "POST",
                "/api/v1/events/",
                writer,
                {"client": "emma", "content": statement, "external_id": f"said-{n}"},
            )
            assert status == 201, text
            assert any(word in hit for hit in _search(port, writer, question))
        assert _metric(port, "memoryhub_reads_total", database="primary", reason="own_write") >= 3

        # A browser's login is a write (its session): the page after it reads the session
        # from the primary until the replica has replayed it, so the advisor is signed in.
        hasher = PBKDF2PasswordHasher()  # one the server knows (the tests' own is faster)
        password = hasher.encode("pw-for-tests", hasher.salt(), iterations=1000)
        type(personas.advisor).objects.filter(pk=personas.advisor.pk).update(password=password)
        jar: dict[str, str] = {}
        assert _page(port, "GET", "/login/", jar) == 200
        signed_in = {"username": "advisor", "password": "pw-for-tests"}
        signed_in["csrfmiddlewaretoken"] = jar["csrftoken"]
        assert _page(port, "POST", "/login/", jar, signed_in) == 302
        assert jar["memoryhub_written"].isdigit()
        assert _page(port, "GET", "/", jar) == 200  # not sent back to the login page

        # Once the replica has replayed the writes (the login's mark is the last of them),
        # a caller who wrote nothing reads there.
        deadline = time.monotonic() + DEADLINE
        with standby.connect() as replica:
            while replica.execute(
                "SELECT pg_last_wal_replay_lsn() - '0/0'::pg_lsn < %s",
                [int(jar["memoryhub_written"])],
            ).fetchone()[0]:
                assert time.monotonic() < deadline, "the standby did not replay the writes"
                time.sleep(0.2)
        # A write mark that is not one is no mark: the page reads from the replica.
        for mark in ("9" * 40, "-1", "x"):
            assert _page(port, "GET", "/", {**jar, "memoryhub_written": mark}) == 200
        before = standby.log_size()
        assert any(
            "cello" in hit for hit in _search(port, reader, "Which instrument does she play?")
        )
        ran_there = standby.log_since(before)
        assert re.search(r"(statement|execute [^:]*): .*FROM memories_memory", ran_there), (
            ran_there + log.read_text()
        )
        assert _metric(port, "memoryhub_reads_total", database="replica", reason="replica") >= 1
        status, _ = _call(port, "GET", "/api/v1/memories/?client=emma", reader)
        assert status == 200

        # The standby stops while searches and lists run: no request fails.
        statuses: list[int] = []
        stop = threading.Event()

        def reading() -> None:
            while not stop.is_set():
                statuses.append(
                    _call(port, "POST", "/api/v1/search/", reader,
                          {"client": "emma", "query": "Who lives in Lugano?", "k": 5})[0]
                )  # fmt: skip
                statuses.append(_call(port, "GET", "/api/v1/memories/?client=emma", reader)[0])

        readers = [threading.Thread(target=reading) for _ in range(3)]
        for thread in readers:
            thread.start()
        time.sleep(2)
        standby.stop("immediate")
        time.sleep(3)
        stop.set()
        for thread in readers:
            thread.join(timeout=DEADLINE)
        assert statuses and set(statuses) == {200}, statuses
        assert any("Banca Stato" in hit for hit in _search(port, reader, "Where are her savings?"))
        status, text = _call(port, "GET", "/api/v1/health/ready")
        assert (status, json.loads(text)["replica"]) == (200, "down")
        assert _metric(port, "memoryhub_replica_up") == 0
    finally:
        stop_groups([server])


# Digits to str.isdigit() that int() refuses, and marks that are no number at all: a
# cookie is anyone's to set for the domain, so none of them may stop a page.
HOSTILE_MARKS = ["²", "¹", "①", "5²", "٣", "１２", "1_000", "+5", "9" * 20, "-1", ""]


def _get_with_mark(port: int, path: str, mark: str, key: str = "") -> int:
    """GET ``path`` with ``mark`` as the write mark cookie, sent as UTF-8 as a browser or a
    script may send it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("GET", path)
        conn.putheader("Cookie", f"memoryhub_written={mark}".encode())
        if key:
            conn.putheader("Authorization", f"Bearer {key}")
        conn.endheaders()
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def test_a_write_mark_that_is_no_number_is_no_mark(personas, standby, tmp_path):
    """Every URL answers as without the cookie: health, a page, an API read."""
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    port, server, log = _serve(standby, tmp_path)
    try:
        _wait_ready(port, server, log)
        answers = {
            (mark, path): _get_with_mark(port, path, mark, key if "memories" in path else "")
            for mark in HOSTILE_MARKS
            for path in (
                "/api/v1/health/",
                "/api/v1/health/ready",
                "/login/",
                "/api/v1/memories/?client=emma",
            )
        }
        assert set(answers.values()) == {200}, answers
        assert "Traceback" not in log.read_text()
    finally:
        stop_groups([server])


def test_without_a_replica_nothing_changes(settings):
    """``make run`` and every deployment without ``MEMORYHUB_REPLICA_URL``: no second
    database, no router, and the middleware takes itself out of the chain."""
    from django.core.exceptions import MiddlewareNotUsed

    from memoryhub import replica

    assert set(settings.DATABASES) == {"default"}
    assert not getattr(settings, "DATABASE_ROUTERS", [])
    assert not replica.configured()
    assert replica.read_alias() == "default"
    with pytest.raises(MiddlewareNotUsed):
        replica.ReplicaReadsMiddleware(lambda request: None)
