"""The web server ``manage.py serve`` runs names no server software nor version, in the
app's answers and in those its HTTP layer writes itself. Served for real, on a free port,
by the same server classes ``serve`` uses."""

from __future__ import annotations

import http.client
import socket
import socketserver
import threading

import pytest
from django.core.servers.basehttp import WSGIRequestHandler, get_internal_wsgi_application

from memories.management.commands.serve import DevServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def port():
    # What runserver builds: its server class, threaded, given Django's request handler.
    server_cls = type("Server", (socketserver.ThreadingMixIn, DevServer.server_cls), {})
    httpd = server_cls(("127.0.0.1", 0), WSGIRequestHandler)
    httpd.daemon_threads = True
    httpd.set_app(get_internal_wsgi_application())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_port
    httpd.shutdown()
    httpd.server_close()


def _get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.mark.parametrize("path", ["/login/", "/static/memoryhub/app.css", "/no-such-page/"])
def test_the_apps_answers_name_no_server_software(port, path):
    response = _get(port, path)
    assert response.status in (200, 404)
    assert response.headers.get_all("Server") == ["memoryhub"]


def test_the_http_layers_own_answers_name_no_server_software(port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        raw.sendall(b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    assert head[0] == "HTTP/1.1 414 Request-URI Too Long"
    assert [line for line in head if line.lower().startswith("server:")] == ["Server: memoryhub"]
