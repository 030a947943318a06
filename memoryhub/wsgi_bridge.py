"""Django's WSGI handler behind the ASGI interface, on a fixed pool of threads.

The production server serves ``memoryhub.asgi``, so that ASGI apps (the MCP endpoint) can
be mounted beside Django. Django's own ASGI handler runs a sync view through three
hand-overs between the event loop and threads (sync middleware, the async core, the sync
view), on a new thread per request, which also means a new database connection per request.
Here a request crosses once: its body is read on the event loop, Django's WSGI handler runs
on one of ``threads`` long-lived threads (each keeps its persistent connection, as under a
WSGI server), and the answer goes back whole. Measured in docs/decisions/0017: the same
requests cost less CPU than through Django's ASGI handler.

The body is read up to one byte past ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django then answers
413 as it does under WSGI), and within ``body_timeout`` seconds: a client that sends its body
slower than that (one byte at a time, or never) is answered 408 and let go, so that it holds
no slot of the server's for longer. Answers are sent in one piece, which every answer of this
app allows (no streaming responses).
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any


async def _too_slow(send, seconds: float) -> None:
    body = json.dumps(
        {
            "error": {
                "code": "request_timeout",
                "message": f"The request body did not arrive within {seconds:g} seconds.",
                "fields": {},
            }
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 408,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                (b"server", b"memoryhub"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class WsgiBridge:
    def __init__(
        self, wsgi_app, *, threads: int, max_body: int, body_timeout: float = 20.0
    ) -> None:
        self.wsgi_app = wsgi_app
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.threads = threads
        self.executor: ThreadPoolExecutor | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            async with asyncio.timeout(self.body_timeout):
                body = await self._body(receive)
        except TimeoutError:
            await _too_slow(send, self.body_timeout)
            return
        loop = asyncio.get_running_loop()
        if self.executor is None:  # the first request, or the first after a shutdown
            self.executor = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="wsgi")
        status, headers, content = await loop.run_in_executor(
            self.executor, self._run, environ(scope, body)
        )
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    async def _body(self, receive) -> bytes:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            if size <= self.max_body:
                chunks.append(chunk)
                size += len(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)[: self.max_body + 1]

    def _run(self, environ: dict) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        started: dict[str, Any] = {}
        written: list[bytes] = []

        def start_response(status: str, headers, exc_info=None):
            started["status"], started["headers"] = status, headers
            return written.append

        result = self.wsgi_app(environ, start_response)
        try:
            for chunk in result:
                written.append(chunk)
        finally:
            # Django sends request_finished here (closes connections past their age): in
            # the thread that owns them.
            close = getattr(result, "close", None)
            if close is not None:
                close()
        headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in started["headers"]
        ]
        return int(started["status"].split(" ", 1)[0]), headers, b"".join(written)

    async def aclose(self) -> None:
        """Let the requests in flight finish, then stop the threads (at shutdown; a
        request after it starts new ones, as when one app is served again in a test)."""
        executor, self.executor = self.executor, None
        if executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


def environ(scope: dict, body: bytes) -> dict:
    """PEP 3333's environ for an ASGI http scope (paths as WSGI has them: the URL's bytes
    read as latin-1)."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    env = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}"
        env[key] = f"{env[key]},{value}" if key in env else value
    if "CONTENT_LENGTH" not in env and body:
        env["CONTENT_LENGTH"] = str(len(body))
    return env
