"""One API call run in-process, exactly as it runs over HTTP: the same view, with its
authentication by the API key, its throttles, permissions, validation and error format.

An MCP tool is the API call its schema names (``x-memoryhub``), so this is the only way
the MCP server reaches memory: there is no second copy of any view's logic to drift.
"""

from __future__ import annotations

import io
import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlencode

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.wsgi import WSGIRequest
from django.db import close_old_connections, connections
from django.urls import Resolver404, resolve

from memories.api.errors import error_body
from memories.middleware import DATABASE_ERRORS, database_trouble

logger = logging.getLogger(__name__)

_PLACEHOLDER = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Answer:
    """An API answer: its status, its JSON body and the headers a caller acts on."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def error(self) -> dict:
        """``{"code", "message", "fields"}`` of an error answer."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"]
        return error_body("error", f"The API answered {self.status}.")["error"]


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: dict[str, str] | None = None
    body: dict | None = None


class BadArguments(Exception):
    """Arguments that cannot make a call at all (a path parameter missing or malformed,
    arguments a call without a body does not take); the message says which."""

    def __init__(self, message: str, fields: dict[str, list[str]]):
        super().__init__(message)
        self.message, self.fields = message, fields


def call_for(tool: dict, arguments: dict) -> Call:
    """The API call ``tool`` (an entry of ``TOOLS``) makes with ``arguments``: path
    parameters filled in, the rest sent as the JSON body or the query string."""
    route = tool["x-memoryhub"]
    properties = tool["function"]["parameters"]["properties"]
    rest = dict(arguments)
    filled = {}
    for name in _PLACEHOLDER.findall(route["path"]):
        value = rest.pop(name, None)
        if not isinstance(value, str) or not value.strip():
            raise BadArguments(
                f"{name}: This field is required.", {name: ["This field is required."]}
            )
        if properties.get(name, {}).get("format") == "uuid" and not _is_uuid(value):
            message = f"{value!r} is not a valid UUID."
            raise BadArguments(f"{name}: {message}", {name: [message]})
        filled[name] = quote(value, safe="")
    path = route["path"].format(**filled)
    if route["body"] == "query":
        return Call(route["method"], path, query={k: _query_value(v) for k, v in rest.items()})
    if route["body"] == "none":
        if rest:
            names = ", ".join(sorted(rest))
            raise BadArguments(
                f"Unknown argument(s): {names}.", {n: ["Unknown field."] for n in sorted(rest)}
            )
        return Call(route["method"], path)
    return Call(route["method"], path, body=rest)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _query_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def api_call(call: Call, *, raw_key: str) -> Answer:
    """Run ``call`` through its view as the holder of ``raw_key``."""
    payload = b"" if call.body is None else json.dumps(call.body).encode()
    # A WSGI path is decoded, as a server hands it over ("José García", not "Jos%C3%A9…").
    path = unquote(call.path)
    request = WSGIRequest(
        {
            "REQUEST_METHOD": call.method,
            "PATH_INFO": path.encode().decode("latin-1"),
            "SCRIPT_NAME": "",
            "QUERY_STRING": urlencode(call.query or {}),
            "SERVER_NAME": "localhost",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_ACCEPT": "application/json",
            "HTTP_AUTHORIZATION": f"Bearer {raw_key}",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(payload)),
            "wsgi.input": io.BytesIO(payload),
            "wsgi.url_scheme": "http",
        }
    )
    try:
        match = resolve(path)
    except Resolver404:
        return Answer(404, error_body("not_found", f"No API endpoint at {call.path}."))
    try:
        response = match.func(request, *match.args, **match.kwargs)
        if hasattr(response, "render"):
            response.render()
    except DATABASE_ERRORS as exc:
        # What the API answers when the database cannot be reached (or lost a race).
        logger.warning("%s %s: %s", call.method, call.path, exc)
        trouble = database_trouble(exc)
        return Answer(
            503,
            error_body(trouble.code, trouble.message),
            {"Retry-After": str(trouble.retry_after)},
        )
    except Exception:
        # What the API's handler500 answers; the traceback goes to the log.
        logger.exception("%s %s failed", call.method, call.path)
        return Answer(
            500, error_body("server_error", "Something went wrong on our side; it was logged.")
        )
    body = json.loads(response.content) if response.content else None
    headers = {
        name: response[name] for name in ("Retry-After", "Idempotent-Replayed") if name in response
    }
    return Answer(response.status_code, body, headers)


def in_own_thread(function):
    """Run the blocking ``function`` from async code as Django's ASGI handler runs a
    view: in a thread of its own for this call (``ThreadSensitiveContext``), old
    connections closed before, and that thread's connection closed after (the thread
    ends with the call, so nothing could reuse it)."""

    def work(*args, **kwargs):
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    async def run(*args, **kwargs):
        async with ThreadSensitiveContext():
            return await sync_to_async(work)(*args, **kwargs)

    return run


api_call_async = in_own_thread(api_call)
