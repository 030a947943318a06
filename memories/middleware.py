"""What every answer goes out with: no server software or version, a
Content-Security-Policy, and, when the database cannot be reached or a transaction lost a
race with another, a 503 with ``Retry-After``, never a 500.

``DatabaseUnavailableMiddleware`` answers for the pages (a plain page: the site's
templates need the session, so the database); API views never reach it, their exception
handler answers in the API's error format (``memories.api.errors``). What PostgreSQL
said (host, socket path) goes to the log, not to the caller.

``ContentSecurityPolicyMiddleware``: Django 5.2 has none built in (6.0 adds
``django.middleware.csp`` with the same ``SECURE_CSP`` setting, which can replace it). The
pages run no inline script and no inline style (every script is a static file,
``static/memoryhub/app.js``; the API docs use drf-spectacular's split view, whose script is
a file too), so the policy allows only this origin's files. The Django admin keeps to that
as it is."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.utils import translation

from memories.db import lost_a_race
from memories.pages.language import page_language

logger = logging.getLogger(__name__)

# psycopg's errors for a server that is down, restarting or refusing connections, and for
# a connection lost mid-request, arrive as these (Django wraps the driver's).
DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30
UNAVAILABLE_MESSAGE = "The database is unavailable; try again in a moment."


@dataclass(frozen=True)
class DatabaseTrouble:
    """What a request that a database error stopped is answered (always a 503)."""

    code: str
    state: str  # what the page says memoryhub is
    message: str
    retry_after: int  # seconds


UNAVAILABLE = DatabaseTrouble(
    "database_unavailable", "unavailable", UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS
)
# A transaction that lost a race with another (a deadlock, a serialization failure, a lock
# timeout) was rolled back: the server is up, and the same request a moment later goes
# through. Told apart so that a client does not wait half a minute for nothing.
BUSY = DatabaseTrouble(
    "database_busy",
    "busy",
    "Another change to the same data held this request up and it was rolled back; try it again.",
    1,
)


def database_trouble(exc: BaseException) -> DatabaseTrouble:
    return BUSY if lost_a_race(exc) else UNAVAILABLE


SERVER_NAME = "memoryhub"


class ServerHeaderMiddleware:
    """``Server: memoryhub`` on every answer of the app. A WSGI server adds its own name
    and version only when the app sets none (wsgiref, Django's development server, does
    so); first in MIDDLEWARE, so static files and error pages get it too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response["Server"] = SERVER_NAME
        return response


def log_database_error(request, exc: BaseException) -> None:
    trouble = database_trouble(exc)
    logger.warning("%s for %s %s: %s", trouble.code, request.method, request.path, exc)


def database_trouble_page(trouble: DatabaseTrouble) -> HttpResponse:
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{trouble.state.capitalize()} · memoryhub</title></head><body>"
        f"<h1>memoryhub is {trouble.state}</h1><p>{trouble.message}</p></body></html>"
    )
    response = HttpResponse(page, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(trouble.retry_after)
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, DATABASE_ERRORS):
            return None
        log_database_error(request, exception)
        return database_trouble_page(database_trouble(exception))


HEADER = "Content-Security-Policy"


def policy_text(policy: dict[str, list[str]]) -> str:
    """``{"script-src": ["'self'"], …}`` as the header says it: ``script-src 'self'; …``."""
    return "; ".join(" ".join([name, *sources]) for name, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.SECURE_CSP and HEADER not in response:
            response[HEADER] = policy_text(settings.SECURE_CSP)
        return response


class PageLanguageMiddleware:
    """After ``LocaleMiddleware`` and the session's user: the language of the page, chosen
    in one place (``memories.pages.language.page_language``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = page_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        return self.get_response(request)
