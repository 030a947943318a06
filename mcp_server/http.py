"""MCP over Streamable HTTP at ``/mcp/``, beside Django in one ASGI application.

``with_mcp(django_app)`` is that application: ``/mcp`` and ``/mcp/`` go to the MCP
transport, everything else to Django, and the ASGI lifespan starts and stops the SDK's
session manager (it runs the server's task group; without it every MCP request would
fail, so until the lifespan has started ``/mcp/`` answers 503 saying so).

The transport is stateless (no session is kept between requests, so any web process can
answer any request) and answers plain JSON. Before the SDK sees a request:

- its Host (and Origin, when a browser sends one) must be one ``MEMORYHUB_ALLOWED_HOSTS``
  allows, with Django's rules (``.example.com``, ``*``): DNS rebinding protection that
  follows the site's own setting (an Origin listed in ``MEMORYHUB_CSRF_TRUSTED_ORIGINS``
  passes too);
- it must be a POST: a stateless server has no stream to open for a GET and no session
  to end for a DELETE (405; the specification allows it, and an event stream that never
  ends would hold a connection of the server for as long as the caller likes);
- it must carry ``Authorization: Bearer <API key>``, a usable key (401 otherwise, in
  the API's error format). Each tool call then runs as that key, through the API.

A database that cannot be reached answers 503 with ``Retry-After``, as the API does.
"""

from __future__ import annotations

import json
import logging
from contextlib import AsyncExitStack, asynccontextmanager
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from mcp_server.calls import in_own_thread
from mcp_server.server import build_server
from memories.api.errors import error_body
from memories.middleware import DATABASE_ERRORS, SERVER_NAME, database_trouble
from memories.services.tenancy.api_keys import InvalidApiKey, api_key_verify

logger = logging.getLogger(__name__)

PATHS = ("/mcp", "/mcp/")
_KEY = "memoryhub.api_key"  # where the verified raw key travels in the ASGI scope
# The JSON-RPC envelope around a tool's arguments is small; the arguments themselves are
# held to the API's own limit when the call runs.
_ENVELOPE_BYTES = 64 * 1024


def _key_of(ctx) -> str:
    return ctx.request.scope[_KEY]


def _verify(raw_key: str) -> str | BaseException | None:
    """None if ``raw_key`` is usable, else why not (the database error that kept it from
    being checked, if one did)."""
    try:
        api_key_verify(raw_key)
    except InvalidApiKey as exc:
        return str(exc)
    except DATABASE_ERRORS as exc:
        logger.warning("the API key of an MCP request could not be checked: %s", exc)
        return exc
    return None


_verify_async = in_own_thread(_verify)


def _allowed_hosts() -> list[str]:
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:  # what Django allows in that case
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return allowed


def _host_allowed(host: str) -> bool:
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


def _origin_allowed(origin: str) -> bool:
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    host = urlsplit(origin).netloc
    return bool(host) and _host_allowed(host)


def _named(send):
    """``send`` with ``Server: memoryhub`` on the response, as every answer of the site has
    (the ASGI server adds its own name and version only when the app sets none)."""

    async def named(message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
            message = {**message, "headers": [*headers, (b"server", SERVER_NAME.encode())]}
        await send(message)

    return named


async def _answer(send, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
    raw = json.dumps(body).encode()
    send = _named(send)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode()),
                *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": raw})


class McpHttpApp:
    """The ASGI application of ``/mcp/`` (see the module docstring)."""

    def __init__(self) -> None:
        self.server = build_server(_key_of)
        self.manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self):
        """The SDK's session manager, for as long as the ASGI lifespan lasts. A manager
        runs once, so each lifespan gets its own."""
        manager = StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            # Host and Origin are checked above, by the site's rules.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE + _ENVELOPE_BYTES,
        )
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope, receive, send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not _host_allowed(headers.get("host", "")):
            host = headers.get("host", "")
            await _answer(send, 421, error_body("bad_host", f"Host {host!r} is not allowed."))
            return
        if "origin" in headers and not _origin_allowed(headers["origin"]):
            origin = headers["origin"]
            await _answer(send, 403, error_body("bad_origin", f"Origin {origin!r} is not allowed."))
            return
        if scope["method"] != "POST":
            await _answer(
                send,
                405,
                error_body(
                    "method_not_allowed",
                    f"{scope['method']} is not served at /mcp/: this server is stateless "
                    "(no event stream to open, no session to end); send JSON-RPC by POST.",
                ),
                {"Allow": "POST"},
            )
            return
        scheme, _, raw_key = headers.get("authorization", "").partition(" ")
        raw_key = raw_key.strip()
        if scheme.lower() != "bearer" or not raw_key:
            await _answer(
                send,
                401,
                error_body(
                    "not_authenticated",
                    "Authentication credentials were not provided: send "
                    "'Authorization: Bearer <API key>'.",
                ),
                {"WWW-Authenticate": "Bearer"},
            )
            return
        refused = await _verify_async(raw_key)
        if isinstance(refused, BaseException):
            trouble = database_trouble(refused)
            await _answer(
                send,
                503,
                error_body(trouble.code, trouble.message),
                {"Retry-After": str(trouble.retry_after)},
            )
            return
        if refused is not None:
            await _answer(
                send,
                401,
                error_body("authentication_failed", refused),
                {"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
            return
        if self.manager is None:
            await _answer(
                send,
                503,
                error_body(
                    "unavailable",
                    "The MCP transport starts with the ASGI lifespan: serve "
                    "memoryhub.asgi:application with lifespan events on.",
                ),
            )
            return
        await self.manager.handle_request({**scope, _KEY: raw_key}, receive, _named(send))


class WithMcp:
    """Django's ASGI application with the MCP transport mounted at ``/mcp/``, and the
    lifespan the transport needs (Django itself has none)."""

    def __init__(self, django_app, mcp_app: McpHttpApp | None = None) -> None:
        self.django_app = django_app
        self.mcp_app = mcp_app or McpHttpApp()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http" and scope["path"] in PATHS:
            await self.mcp_app(scope, receive, send)
        else:
            await self.django_app(scope, receive, send)

    async def _lifespan(self, receive, send) -> None:
        stack = AsyncExitStack()
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await stack.enter_async_context(self.mcp_app.running())
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await stack.aclose()
                # The app behind (the WSGI bridge) gets no lifespan of its own: stop it.
                if (aclose := getattr(self.django_app, "aclose", None)) is not None:
                    await aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


def with_mcp(django_app) -> WithMcp:
    return WithMcp(django_app)
