"""A client reference names the client in URLs (the API's /clients/<ref>/…, MCP's
memoryhub://clients/<ref>/…): one that no URL can reach is refused when a client would be
made with it, and any other reaches every path, percent-encoded or not."""

import asyncio

import pytest
from mcp import Client as McpClient

from mcp_server.server import build_server
from memories.models import Client
from tests.support import factories

pytestmark = pytest.mark.django_db

MESSAGE = "A client reference cannot contain '/' nor be '.' or '..': it names the client in URLs."


@pytest.mark.parametrize("ref", ["x/y", ".", "..", " .. ", "/"])
def test_a_reference_no_url_can_reach_is_refused(api_client, personas, ref):
    _, key = factories.api_key_for(personas.advisor, personas.tenant)
    answer = api_client.post(
        "/api/v1/events/",
        {"client": ref, "content": "I prefer email."},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"] == {"client": [MESSAGE]}
    assert not Client.objects.filter(external_ref=ref.strip()).exists()


# The MCP server answers from threads of its own, with their own connections.
@pytest.mark.django_db(transaction=True)
def test_a_reference_with_spaces_and_accents_reaches_every_path(api_client, personas):
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    ref = "José García"
    posted = api_client.post(
        "/api/v1/events/", {"client": ref, "content": "I prefer email."}, format="json", **auth
    )
    assert posted.status_code == 201
    for path in ("profile", "export"):
        answer = api_client.get(f"/api/v1/clients/Jos%C3%A9%20Garc%C3%ADa/{path}/", **auth)
        assert answer.status_code == 200, path

    async def read():
        async with McpClient(build_server(lambda ctx: key)) as client:
            listed = await client.list_resources()
            uri = next(str(r.uri) for r in listed.resources if str(r.uri).endswith("/core"))
            return uri, await client.read_resource(uri)

    uri, resource = asyncio.run(read())
    assert uri == "memoryhub://clients/Jos%C3%A9%20Garc%C3%ADa/core"
    assert '"client": "José García"' in resource.contents[0].text
