"""A local HTTP server on 127.0.0.1 that speaks the Voyage and OpenAI protocols
(embeddings and chat completions), with scripted failures: 429, 500, timeouts, requests
that hang until the test lets them go, and malformed answers. The product's real clients
talk to it; nothing is patched."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

DIMENSIONS = {
    "voyage-3-large": 1024,
    "text-embedding-3-large": 3072,
    "text-embedding-3-small": 1536,
}


def fake_vector(text: str, dimension: int) -> list[float]:
    """Deterministic unit vector per text: equal texts are identical, others far apart."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return (vector / np.linalg.norm(vector)).tolist()


class FakeProviderServer:
    """``script`` holds what the next requests get: "ok", "429", "500", "timeout", "short"
    (one vector too few), "wrong_dim", "hang" (no answer until ``release`` is set, then
    "ok"); when empty every request is "ok". ``scripts[model]`` does the same for one
    model only. ``requests`` lists every request as it arrives, before it is answered."""

    def __init__(self, *, timeout_sleep: float = 2.0):
        self.script: deque[str] = deque()
        self.scripts: dict[str, deque[str]] = {}  # per model, consulted first
        self.requests: list[dict] = []
        self.chat_reply: dict | str = {"memories": []}
        self.timeout_sleep = timeout_sleep
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()  # nothing stays hung past the test
        self._server.shutdown()
        self._server.server_close()

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def received(self, model: str) -> int:
        """How many requests for ``model`` have arrived (answered or not)."""
        with self._lock:
            return sum(r["body"].get("model") == model for r in self.requests)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append(
                        {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                    )
                    queue = fake.scripts.get(body.get("model", "")) or fake.script
                    mode = queue.popleft() if queue else "ok"
                if mode == "hang":
                    fake.release.wait()
                    mode = "ok"
                if mode == "timeout":
                    time.sleep(fake.timeout_sleep)
                    return self._reply(500, {"error": {"message": "too late"}})
                if mode == "429":
                    return self._reply(429, {"error": {"message": "rate limited"}})
                if mode == "500":
                    return self._reply(500, {"error": {"message": "internal error"}})
                if self.path.endswith("/embeddings"):
                    return self._reply(200, fake._embeddings(body, mode))
                if self.path.endswith("/chat/completions"):
                    return self._reply(200, fake._chat(body))
                return self._reply(404, {"error": {"message": "no such endpoint"}})

            def _reply(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout), as it should

        return Handler

    def _embeddings(self, body: dict, mode: str) -> dict:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        model = body["model"]
        dimension = DIMENSIONS[model] - (1 if mode == "wrong_dim" else 0)
        if mode == "short":
            texts = texts[:-1]
        data = []
        for index, text in enumerate(texts):
            vector = fake_vector(text, dimension)
            embedding: str | list[float]
            if body.get("encoding_format") == "base64":
                packed = struct.pack(f"<{len(vector)}f", *vector)
                embedding = base64.b64encode(packed).decode()
            else:
                embedding = vector
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(len(t.split()) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _chat(self, body: dict) -> dict:
        content = (
            self.chat_reply if isinstance(self.chat_reply, str) else json.dumps(self.chat_reply)
        )
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
