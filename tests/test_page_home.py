"""Home and the top bar: each persona is offered what its role may open, and no more."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("persona", "links"),
    [
        ("advisor", {"/clients/"}),
        ("advisor2", {"/clients/"}),
        ("outsider", {"/clients/"}),
        ("supervisor", {"/clients/", "/review/"}),
        ("admin", {"/clients/", "/review/", "/admin/"}),
        ("client_user", {"/me/"}),
        ("heir", {"/me/"}),
    ],
)
def test_home_offers_what_the_role_may_open(client, personas, persona, links):
    client.force_login(getattr(personas, persona))
    response = client.get("/")
    assert response.status_code == 200
    assert "memories/home.html" in [t.name for t in response.templates]
    nav = response.content.decode().split('<nav aria-label="Main">')[1].split("</nav>")[0]
    offered = {href for href in ("/clients/", "/review/", "/me/", "/admin/") if href in nav}
    assert offered == links


def test_pages_load_htmx_and_send_csrf_from_the_body(client, personas):
    client.force_login(personas.advisor)
    page = client.get("/").content.decode()
    assert '<script src="/static/memoryhub/vendor/htmx.min.js" defer></script>' in page
    assert '<body hx-headers=\'{"X-CSRFToken": "' in page
    assert "https://" not in page.split("<body")[0]  # no CDN


def test_static_files_are_served_by_whitenoise(client):
    response = client.get("/static/memoryhub/vendor/htmx.min.js")
    assert response.status_code == 200
    assert b"htmx" in b"".join(response.streaming_content)[:2000]
