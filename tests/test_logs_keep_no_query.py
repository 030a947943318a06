"""What a person said never reaches the logs through a query string: a page that answers
4xx is logged by Django with its request, and the JSON lines show its method and path."""

import json
import logging

import pytest

from memoryhub.observability.logs import JsonFormatter

pytestmark = pytest.mark.django_db

SAID = "SECRETWORD-of-the-client"


def test_a_refused_page_request_is_logged_without_its_query_string(client, personas, caplog):
    caplog.set_level(logging.INFO)
    client.force_login(personas.advisor)
    asked = (
        f"/clients/{personas.client.pk}/context/?message={SAID}&k=abc",
        f"/clients/{personas.advisor2_client.pk}/context/?message={SAID}",
    )
    assert [client.get(url).status_code for url in asked] == [400, 404]
    lines = [JsonFormatter().format(record) for record in caplog.records]
    requests = [json.loads(line) for line in lines if '"request"' in line]
    assert [r["request"] for r in requests] == [
        {"method": "GET", "path": f"/clients/{personas.client.pk}/context/"},
        {"method": "GET", "path": f"/clients/{personas.advisor2_client.pk}/context/"},
    ]
    assert not [line for line in lines if SAID in line]
