"""The production server: sized from the machine, pre-forked workers that register with the
embedded database and embed on a session of their own, and a graceful stop.

The pre-fork tests run real processes on an embedded PostgreSQL of their own (a temporary
data folder), as ``make run`` does."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from memoryhub import embedded_db, serving
from tests.support.live import free_port

ROOT = Path(__file__).resolve().parent.parent
GB = 2**30


# --- sizing ---------------------------------------------------------------------------


def test_two_cores_plenty_of_memory_one_process_per_core_one_embedder_thread():
    plan = serving.plan(cores=2, memory=24 * GB, environ={})
    assert (plan.workers, plan.threads, plan.embedder_threads) == (2, 4, 1)
    assert plan.environment() == {
        "MEMORYHUB_LOCAL_EMBEDDER_THREADS": "1",
        "MEMORYHUB_WEB_THREADS": "4",
    }


def test_memory_caps_the_processes_and_the_spare_cores_go_to_the_embedder():
    # Half of 1 GB holds one 512 MB web process: 16 cores, 4 requests in flight.
    plan = serving.plan(cores=16, memory=1 * GB, environ={})
    assert (plan.workers, plan.threads, plan.embedder_threads) == (1, 4, 4)


def test_many_cores_one_process_each_while_memory_lasts():
    plan = serving.plan(cores=32, memory=8 * GB, environ={})
    assert (plan.workers, plan.embedder_threads) == (8, 1)


def test_every_size_can_be_set():
    environ = {
        "MEMORYHUB_WEB_WORKERS": "3",
        "MEMORYHUB_WEB_THREADS": "2",
        "MEMORYHUB_LOCAL_EMBEDDER_THREADS": "2",
    }
    plan = serving.plan(cores=2, memory=24 * GB, environ=environ)
    assert (plan.workers, plan.threads, plan.embedder_threads) == (3, 2, 2)
    command = plan.command("127.0.0.1", 8123)
    assert command[:3] == [sys.executable, "-m", "granian"]
    assert command[command.index("--workers") + 1] == "3"
    assert command[command.index("--backpressure") + 1] == "64"
    assert command[command.index("--http1-header-read-timeout") + 1] == "5000"
    assert command[-1] == "memoryhub.asgi:application"


@pytest.mark.parametrize("raw", ["0", "-1", "two"])
def test_a_size_that_is_not_a_positive_integer_is_refused(raw):
    with pytest.raises(
        ValueError, match=f"MEMORYHUB_WEB_WORKERS must be a positive integer, not '{raw}'"
    ):
        serving.plan(cores=2, memory=24 * GB, environ={"MEMORYHUB_WEB_WORKERS": raw})


@pytest.mark.parametrize(
    ("cpu_max", "expected"), [("50000 100000", 1), ("max 100000", 2), ("400000 100000", 2)]
)
def test_cores_are_the_affinity_or_the_containers_quota(tmp_path, monkeypatch, cpu_max, expected):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    (tmp_path / "cpu.max").write_text(cpu_max + "\n")
    assert serving.cores(tmp_path) == expected


# --- pre-fork: the embedded database's registration and the ONNX session ---------------

FORKED = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from memoryhub import embedded_db
    from memories.services.embedding.multilingual import MultilingualEmbedder

    data = Path(sys.argv[1])
    embedded_db.start(data)
    embedder = MultilingualEmbedder(threads=1)
    before = embedder.embed(["I prefer to be contacted by email."])[0]
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        vector = embedder.embed(["I prefer to be contacted by email."])[0]
        report = {
            "pid": os.getpid(),
            "handles": embedded_db.status(data)["handles"],
            "same_vector": max(abs(a - b) for a, b in zip(vector, before)) < 1e-6,
            "own_session": embedder._pid == os.getpid(),
        }
        os.write(write, json.dumps(report).encode())
        # As multiprocessing's children leave. (Through exit(), onnxruntime's C++ destructors
        # wait for the parent's thread pool: see docs/decisions/0017.)
        os._exit(0)
    os.close(write)
    report = json.loads(os.read(read, 100000))
    os.waitpid(child, 0)
    report["parent"] = os.getpid()
    report["after"] = embedded_db.status(data)
    print(json.dumps(report), flush=True)
    """
)

MULTIPROCESSING_CHILD = textwrap.dedent(
    """
    import json, multiprocessing, sys
    from pathlib import Path
    from memoryhub import embedded_db

    def worker(data, queue):
        # As granian's workers do: the app (and the database) is loaded after the fork.
        embedded_db.start(Path(data))
        queue.put(embedded_db.status(Path(data))["handles"])

    if __name__ == "__main__":
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=worker, args=(sys.argv[1], queue))
        child.start()
        handles = queue.get(timeout=120)
        child.join(timeout=120)
        print(json.dumps({"child": child.pid, "handles": handles,
                          "after": embedded_db.status(Path(sys.argv[1]))}), flush=True)
    """
)


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "data"
    if (tmp_path / "data" / "postgres").exists():
        embedded_db.stop(tmp_path / "data")


def _run(script: str, data_dir: Path) -> dict:
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", script, str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_forked_child_registers_embeds_on_its_own_session_and_leaves(data_dir):
    report = _run(FORKED, data_dir)
    # The child was a user of the database while it lived, with the parent.
    assert sorted(report["handles"]) == sorted([report["parent"], report["pid"]])
    # Its embedder opened a session of its own (onnxruntime's threads do not survive a fork)
    # and computes the same vector.
    assert (report["own_session"], report["same_vector"]) == (True, True)
    # The parent still holds the server.
    assert report["parent"] in report["after"]["handles"]
    assert report["after"]["running"] is True


def test_a_multiprocessing_child_that_leaves_last_stops_the_server(data_dir):
    report = _run(MULTIPROCESSING_CHILD, data_dir)
    assert report["handles"] == [report["child"]]
    # multiprocessing's children exit through os._exit, past atexit: it said goodbye anyway,
    # and as the last user it stopped the server.
    assert report["after"]["handles"] == []
    assert report["after"]["running"] is False


# --- serve: granian's workers under the embedded database, and a graceful stop ---------


def _get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request("GET", path, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        conn.close()


def _post(port: int, path: str, body: dict, key: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request(
            "POST",
            path,
            body=json.dumps(body),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def _wait_ready(port: int, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()
        try:
            if _get(port, "/api/v1/health/ready")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail("the server never became ready:\n" + log.read_text())


def test_serve_on_a_taken_port_says_so_in_one_line_and_fails(data_dir):
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data_dir), "PYTHONWARNINGS": "ignore"}
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(  # noqa: S603
            [sys.executable, str(ROOT / "manage.py"), "serve", f"127.0.0.1:{port}", "--no-demo"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode != 0
    assert f"port {port} is taken on 127.0.0.1" in done.stderr
    assert f"make run PORT={port + 1}" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "memoryhub is" not in done.stdout  # neither starting nor ready


def test_serve_runs_registered_workers_and_stops_gracefully(data_dir):
    env = {
        **os.environ,
        "MEMORYHUB_DATA_DIR": str(data_dir),
        "MEMORYHUB_WEB_WORKERS": "2",
        "MEMORYHUB_METRICS_TOKEN": "serve-test",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)  # noqa: S603
    key = subprocess.run(  # noqa: S603
        [*manage, "create_api_key", "--tenant", "t", "--user", "u", "--role", "SUPERVISOR"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()
    port = free_port()
    log = data_dir / "serve.log"
    server = subprocess.Popen(  # noqa: S603
        [*manage, "serve", f"127.0.0.1:{port}", "--no-demo", "--no-worker"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_ready(port, server, log)
        # The banner's commands run as typed at the checkout (the README's .venv/bin/python).
        assert f"API key: {Path(sys.executable).relative_to(ROOT)} manage.py" in log.read_text()
        serve = psutil.Process(server.pid)
        (granian,) = serve.children()
        workers = granian.children()
        assert len(workers) == 2
        # serve and both web processes use the database; granian's master never loads the app.
        handles = embedded_db.status(data_dir)["handles"]
        assert sorted(handles) == sorted([server.pid, *(w.pid for w in workers)])

        # Every worker embeds on its own session: enough writes reach both.
        statuses = []

        def write(n: int) -> None:
            body = {"client": f"c{n}", "content": f"I moved to city number {n} last year."}
            statuses.append(_post(port, "/api/v1/events/", body, key)[0])

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [201] * 8
        status, _, metrics = _get(port, "/metrics", {"Authorization": "Bearer serve-test"})
        assert status == 200
        # Both processes' counts, added up (one folder for all, prometheus-client's
        # multi-process mode): 8 events, one statement each.
        assert b'memoryhub_ingest_outcomes_total{action="added"} 8.0' in metrics

        # Answers name no server software (granian adds none when the app names one).
        status, headers, _ = _get(port, "/login/")
        assert status == 200
        assert {k.lower(): v for k, v in headers.items()}["server"] == "memoryhub"
        # The MCP transport is mounted and its lifespan started under granian.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        conn.request(
            "POST",
            "/mcp/",
            body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            headers={
                "Authorization": f"Bearer {key}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        listed = conn.getresponse()
        tools = json.loads(listed.read())["result"]["tools"]
        conn.close()
        assert listed.status == 200
        assert "recall" in {tool["name"] for tool in tools}
        # MCP's answers name no server software either (they did: "granian").
        assert listed.getheader("server") == "memoryhub"

        # A stop while a request is in flight: the request is answered, then all stops.
        answer: dict = {}
        batch = {
            "events": [
                {"client": "batch", "content": f"My cousin number {n} lives in Leeds."}
                for n in range(150)
            ]
        }
        in_flight = threading.Thread(
            target=lambda: answer.update(result=_post(port, "/api/v1/events/batch/", batch, key))
        )
        in_flight.start()
        _wait_for_a_query_in_flight(data_dir)
        server.send_signal(signal.SIGTERM)
        in_flight.join(timeout=300)
        assert answer["result"][0] == 201
        assert len(json.loads(answer["result"][1])["results"]) == 150
        assert server.wait(timeout=120) == 0
        assert [w.pid for w in workers if _alive(w)] == []
        # The last user stopped the embedded database.
        assert embedded_db.status(data_dir)["running"] is False
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)


def _wait_for_a_query_in_flight(data_dir: Path) -> None:
    """Until a web process is inside the batch's transaction (PostgreSQL says so)."""
    import psycopg

    # postmaster.pid: pid, data folder, start time, port, socket folder, …
    lines = (data_dir / "postgres" / "postmaster.pid").read_text().splitlines()
    deadline = time.monotonic() + 240
    with psycopg.connect(
        host=lines[4], port=lines[3], user=embedded_db.SUPERUSER, dbname="postgres", autocommit=True
    ) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                "AND state IN ('active', 'idle in transaction') AND pid <> pg_backend_pid()",
                [embedded_db.DATABASE_NAME],
            ).fetchone()
            if row and row[0]:
                return
            time.sleep(0.05)
    pytest.fail("the batch never reached the database")


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# --- the WSGI bridge ------------------------------------------------------------------


def test_the_bridge_builds_the_wsgi_environ_of_an_asgi_request():
    from memoryhub.wsgi_bridge import environ

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/clients/zoë/",
        "root_path": "",
        "query_string": b"a=1&b=%C3%A9",
        "http_version": "1.1",
        "scheme": "https",
        "server": ("memory.example.com", 443),
        "client": ("10.1.2.3", 5123),
        "headers": [
            (b"host", b"memory.example.com"),
            (b"content-type", b"application/json"),
            (b"content-length", b"2"),
            (b"x-request-id", b"abc"),
            (b"accept", b"text/html"),
            (b"accept", b"application/json"),
        ],
    }
    env = environ(scope, b"{}")
    body = env.pop("wsgi.input").read()
    env.pop("wsgi.errors")
    assert body == b"{}"
    assert env == {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/api/v1/clients/zoë/".encode().decode("latin-1"),
        "QUERY_STRING": "a=1&b=%C3%A9",
        "SERVER_NAME": "memory.example.com",
        "SERVER_PORT": "443",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.1.2.3",
        "REMOTE_PORT": "5123",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "https",
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "HTTP_HOST": "memory.example.com",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": "2",
        "HTTP_X_REQUEST_ID": "abc",
        "HTTP_ACCEPT": "text/html,application/json",
    }


def test_the_bridge_answers_through_djangos_wsgi_handler_and_cuts_oversized_bodies():
    import asyncio

    from memoryhub.wsgi_bridge import WsgiBridge

    seen: dict = {}

    def app(environ, start_response):
        seen["body"] = environ["wsgi.input"].read()
        seen["length"] = environ.get("CONTENT_LENGTH")
        start_response("201 Created", [("Content-Type", "text/plain"), ("X-Request-ID", "r1")])
        return [b"made ", b"it"]

    bridge = WsgiBridge(app, threads=2, max_body=10)
    sent: list[dict] = []
    messages = [
        {"type": "http.request", "body": b"0123456789", "more_body": True},
        {"type": "http.request", "body": b"ABCDEF", "more_body": False},
    ]

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/x", "headers": []}
    asyncio.run(bridge(scope, receive, send))
    # One byte past the limit is enough for Django to answer 413.
    assert seen == {"body": b"0123456789A", "length": "11"}
    assert sent == [
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [(b"content-type", b"text/plain"), (b"x-request-id", b"r1")],
        },
        {"type": "http.response.body", "body": b"made it"},
    ]


SERVE_LIKE = textwrap.dedent(
    """
    import subprocess, sys, time
    from memoryhub.serving import child_command
    child = subprocess.Popen(
        child_command([sys.executable, "-c", "import time; time.sleep(600)"]),
        start_new_session=True,
    )
    print(child.pid, flush=True)
    time.sleep(600)
    """
)


def test_the_web_server_and_the_worker_stop_when_serve_is_killed():
    """They run in sessions of their own (Ctrl-C reaches serve alone), so a killed serve
    would leave them running; the kernel tells them instead."""
    parent = subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", SERVE_LIKE],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = psutil.Process(int(parent.stdout.readline()))
    assert _alive(child)
    parent.kill()
    parent.wait(timeout=30)
    # Not child.wait(): whoever adopts the orphan may reap it late; a zombie is stopped.
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def test_a_loaded_app_settles_its_heap_out_of_the_collector_s_way():
    """Every view module is imported, then what is alive is frozen: a full collection no
    longer walks the loaded app (a pause of ~90 ms every few hundred requests)."""
    import gc

    from memoryhub.serving import heap_settled

    gc.unfreeze()
    try:
        heap_settled()
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()


def test_slow_clients_hold_no_server(data_dir):
    """Half-sent headers and a body that never comes, over real sockets: 96 connections
    holding half their headers left two web processes unable to answer anyone for
    granian's 30 s header timeout (they filled its backpressure of 64). Now the server
    answers meanwhile, closes a connection that has not sent its headers within 5 s, and
    answers a body that does not arrive in time 408."""
    env = {
        **os.environ,
        "MEMORYHUB_DATA_DIR": str(data_dir),
        "MEMORYHUB_WEB_WORKERS": "2",
        "MEMORYHUB_BODY_TIMEOUT": "2",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)  # noqa: S603
    port = free_port()
    log = data_dir / "serve.log"
    server = subprocess.Popen(  # noqa: S603
        [*manage, "serve", f"127.0.0.1:{port}", "--no-demo", "--no-worker"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    slow: list[socket.socket] = []
    try:
        _wait_ready(port, server, log)
        for _ in range(96):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET /api/v1/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(sock)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn.request("GET", "/api/v1/health/live")
        assert conn.getresponse().status == 200
        conn.close()
        # The half-sent headers are dropped (or answered 408), not kept waiting.
        slow[0].settimeout(60)
        dropped = slow[0].recv(1024)
        assert dropped == b"" or dropped.startswith(b"HTTP/1.1 408"), dropped
        body = socket.create_connection(("127.0.0.1", port), timeout=60)
        body.sendall(
            b"POST /api/v1/events/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"client"'
        )
        answer = body.recv(4096)
        body.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"The request body did not arrive within 2 seconds." in answer
    finally:
        for sock in slow:
            sock.close()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=120)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=30)
