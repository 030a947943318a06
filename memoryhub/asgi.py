"""The ASGI app the production server serves (``manage.py serve``: granian).

Django answers through its WSGI handler on a fixed pool of threads (``wsgi_bridge``: one
hand-over per request, persistent database connections); ASGI apps can be mounted in front
of it."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")

from django.conf import settings  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from memoryhub.serving import THREADS_ENV, DEFAULT_THREADS  # noqa: E402
from memoryhub.wsgi_bridge import WsgiBridge  # noqa: E402

django_application = get_wsgi_application()
application = WsgiBridge(
    django_application,
    threads=int(os.environ.get(THREADS_ENV) or DEFAULT_THREADS),
    max_body=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
)
