"""The ASGI app the production server serves (``manage.py serve``: granian).

Django answers through its WSGI handler on a fixed pool of threads (``wsgi_bridge``: one
hand-over per request, persistent database connections); ASGI apps can be mounted in front
of it."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from memoryhub.serving import DEFAULT_THREADS, THREADS_ENV
from memoryhub.wsgi_bridge import WsgiBridge

django_application = get_wsgi_application()
application = WsgiBridge(
    django_application,
    threads=int(os.environ.get(THREADS_ENV) or DEFAULT_THREADS),
    max_body=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
)
