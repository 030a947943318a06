"""MCP over stdio, for a host that starts memoryhub as a subprocess (Claude Desktop,
Cursor, an agent runtime): one API key for the whole session, checked before serving and
again on every call (a key revoked meanwhile stops working at once)."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from mcp_server.server import build_server
from memories.services.tenancy.api_keys import InvalidApiKey, api_key_verify


class KeyRefused(Exception):
    pass


def key_check(raw_key: str) -> None:
    """Raise KeyRefused saying why ``raw_key`` cannot be used."""
    if not raw_key:
        raise KeyRefused("No API key: pass --key or set MEMORYHUB_API_KEY.")
    try:
        api_key_verify(raw_key)
    except InvalidApiKey as exc:
        raise KeyRefused(str(exc)) from exc


def serve_stdio(raw_key: str) -> None:
    """Serve until the host closes stdin. Nothing but MCP messages goes to stdout (the
    SDK points stray writes at stderr while it serves)."""
    key_check(raw_key)
    server = build_server(lambda ctx: raw_key)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
