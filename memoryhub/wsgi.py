import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
application = get_wsgi_application()

from memoryhub.serving import heap_settled  # noqa: E402  (after the app registry is ready)

heap_settled()
