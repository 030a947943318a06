"""A live memoryhub for tests that talk to it as a program would: the ASGI application
(Django with the MCP transport, ``memoryhub.asgi``) served by uvicorn in a thread, and
the environment a subprocess needs to use this test's database.

Tests using either need ``django_db(transaction=True)``: the server's threads and the
subprocesses read only what the test committed.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import urllib.parse
from typing import Literal

import uvicorn
from django.conf import settings
from django.db import connection

from memoryhub.asgi import application


class LiveAsgiServer:
    """uvicorn serving ``memoryhub.asgi.application`` on a free local port, lifespan on
    (it starts the MCP transport), for as long as the ``with`` block lasts."""

    def __init__(self, *, lifespan: Literal["on", "off"] = "on") -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(application, lifespan=lifespan, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> LiveAsgiServer:
        self.thread.start()
        started = threading.Event()
        while not self.server.started and self.thread.is_alive():
            started.wait(0.05)
        if not self.server.started:
            raise RuntimeError("uvicorn did not start")
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()


def stop_groups(processes: list[subprocess.Popen], timeout: float = 40) -> None:
    """Stop each subprocess started with ``start_new_session=True``, its children with it:
    SIGTERM to all (a graceful stop), SIGKILL to any still running after ``timeout``."""
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def free_port() -> int:
    """A local TCP port nothing listens on now (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url() -> str:
    """This test's database, as a subprocess's DATABASE_URL."""
    db = connection.settings_dict
    host = urllib.parse.quote(db["HOST"], safe="")
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{host}:{db['PORT']}/{db['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    """A memoryhub process on this test's database, running tasks inline as the suite does."""
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
        "MEMORYHUB_QUEUE_SYNC": "true",
        # DATABASE_URL makes it a deployment, which needs a key shared by its processes.
        "MEMORYHUB_SECRET_KEY": "live-test-only",
        "MEMORYHUB_HTTPS": "false",
        "MEMORYHUB_MASTER_KEY": settings.MEMORYHUB_MASTER_KEY,
        "PYTHONWARNINGS": "ignore",
        **extra,
    }
