"""A local HTTP receiver for webhook deliveries: records every request (headers and raw
body) and answers as scripted: a status, or a delay before answering."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class WebhookReceiver:
    """``script`` holds what the next requests get: an HTTP status (int), or
    ``("slow", seconds)``; when empty, 204."""

    def __init__(self) -> None:
        self.script: deque = deque()
        self.received: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/hooks"

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def bodies(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.received]

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.received.append(
                    {"path": self.path, "headers": dict(self.headers.items()), "body": body}
                )
                step = receiver.script.popleft() if receiver.script else 204
                if isinstance(step, tuple):
                    time.sleep(step[1])
                    step = 204
                self.send_response(step)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        return Handler
