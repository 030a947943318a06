"""The MCP server over stdio, as an MCP host starts it (``manage.py mcp --key …``, or the
``memoryhub-mcp`` console script), driven by the official MCP client."""

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CONNECTION_CLOSED

from tests.support import factories
from tests.support.live import subprocess_env
from tests.support.mcp_scenario import check_every_tool, every_tool, mcp_errors

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent


def _manage_py(key: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "manage.py"), "mcp", "--key", key],
        env=subprocess_env(),
        cwd=str(ROOT),
    )


def test_every_tool_and_resource(personas, api_client):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    foreign = factories.MemoryFactory.create(client=personas.advisor2_client)

    async def scenario():
        async with Client(_manage_py(key)) as client:
            return await every_tool(client, foreign_memory_id=str(foreign.pk))

    seen = asyncio.run(scenario())
    check_every_tool(seen, api_client=api_client, key=key, foreign_memory_id=str(foreign.pk))


def test_a_bad_key_stops_the_console_script_before_it_serves(personas, tmp_path):
    """The host sees the connection close, and the reason on the server's stderr."""
    script = Path(sys.executable).parent / "memoryhub-mcp"
    params = StdioServerParameters(
        command=str(script),
        env=subprocess_env(MEMORYHUB_API_KEY="mh_00000000_not-a-real-key"),
        cwd=str(ROOT),
    )
    errors = (tmp_path / "stderr.txt").open("w+")

    async def scenario():
        async with Client(stdio_client(params, errlog=errors)) as client:
            await client.list_tools()

    with pytest.raises(BaseException) as refused:  # the SDK's task groups wrap it
        asyncio.run(scenario())
    assert [e.code for e in mcp_errors(refused.value)] == [CONNECTION_CLOSED]
    errors.seek(0)
    assert errors.read().strip().splitlines()[-1] == (
        "CommandError: MCP server not started: Unknown API key."
    )
