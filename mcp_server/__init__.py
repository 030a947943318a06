"""The MCP server: memoryhub for MCP hosts, over stdio (``manage.py mcp``,
``memoryhub-mcp``) and Streamable HTTP (``/mcp/`` of ``memoryhub.asgi``).

It is a door like ``memories.api``: every tool runs the API call its schema names
(``memories.api.tool_schemas``), so it has the API's authentication, permissions,
throttles and errors by construction. It imports ``memories``; nothing imports it but the
ASGI wiring (``memoryhub.asgi``) and the URL that explains it under WSGI.
"""
