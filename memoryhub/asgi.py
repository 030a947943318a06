"""The ASGI application: Django, with the MCP transport mounted at /mcp/ (mcp_server.http).
Serve it with lifespan events on (uvicorn's default): they start the MCP transport."""

import os

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
django_application = get_asgi_application()

from mcp_server.http import with_mcp  # noqa: E402  (needs the app registry set up above)


def _close_connections(**kwargs) -> None:
    """Django runs each ASGI request in a thread of its own, which ends with it: a
    connection kept for reuse (CONN_MAX_AGE) would stay open and never be reused
    (Django's documentation: no persistent connections under ASGI). Closed when the
    response is, in that thread; WSGI requests keep theirs."""
    connections.close_all()


request_finished.connect(_close_connections, sender=ASGIHandler, dispatch_uid="asgi-close-db")

application = with_mcp(django_application)
