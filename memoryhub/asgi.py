"""The ASGI app the production server serves (``manage.py serve``: granian).

Django answers through its WSGI handler on a fixed pool of threads (``wsgi_bridge``: one
hand-over per request, persistent database connections); the MCP transport is mounted in
front of it at ``/mcp/`` (``mcp_server.http``). Serve it with lifespan events on (granian's
and uvicorn's default): they start the MCP transport and stop the bridge's threads."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from memoryhub.serving import DEFAULT_THREADS, THREADS_ENV, heap_settled
from memoryhub.wsgi_bridge import WsgiBridge

django_application = get_wsgi_application()

from mcp_server.http import with_mcp  # noqa: E402  (needs the app registry set up above)

bridge = WsgiBridge(
    django_application,
    threads=int(os.environ.get(THREADS_ENV) or DEFAULT_THREADS),
    max_body=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
    body_timeout=settings.MEMORYHUB_BODY_TIMEOUT,
)
application = with_mcp(bridge)
heap_settled()
