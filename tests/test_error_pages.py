"""403 and 404 pages: the app's page, with its navigation and the reason; a denied
request is logged in one line, without a traceback; the browser's favicon is there."""

from __future__ import annotations

import logging
import sys

import pytest

from memoryhub.logfilters import ExpectedDenials

pytestmark = pytest.mark.django_db


def test_a_denied_page_says_why_inside_the_app(client, personas):
    client.force_login(personas.client_user)
    response = client.get("/review/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "403.html" in [t.name for t in response.templates]
    assert "<p>The review queue is for supervisors and admins.</p>" in page
    assert 'href="/me/"' in page  # the navigation of the user's role
    assert "/static/memoryhub/app.css" in page


def test_a_page_not_found_is_inside_the_app(client, personas):
    client.force_login(personas.advisor)
    response = client.get("/clients/not-a-client/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "404.html" in [t.name for t in response.templates]
    assert "<h1>Not found</h1>" in page
    assert "<code>/clients/not-a-client/</code>" in page
    assert 'href="/clients/"' in page
    assert "/static/memoryhub/app.css" in page


def test_a_denied_request_is_logged_in_one_line_without_a_traceback(client, personas, caplog):
    client.force_login(personas.client_user)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get("/review/").status_code == 403
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert (record.getMessage(), record.exc_info, record.exc_text) == (
        "Forbidden (Permission denied): /review/",
        None,
        None,
    )


def test_an_error_keeps_its_traceback():
    """The filter takes the traceback off denials only: a server error keeps it."""
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        exc_info = sys.exc_info()
    records = {
        status: logging.LogRecord("django.request", logging.ERROR, "", 0, "x", (), exc_info)
        for status in (403, 500)
    }
    for status, record in records.items():
        record.status_code = status
        assert ExpectedDenials().filter(record) is True
    assert (records[403].exc_info, records[500].exc_info) == (None, exc_info)


def test_the_favicon_address_leads_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/memoryhub/icon.svg")
    icon = client.get("/static/memoryhub/icon.svg")
    assert (icon.status_code, icon["Content-Type"]) == (200, "image/svg+xml")
