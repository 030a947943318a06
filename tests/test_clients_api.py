"""GET /api/v1/clients/: the clients a key may see, by reference, a page at a time (who sees
which is in tests/test_permission_matrix.py)."""

import pytest

from tests.support import factories

pytestmark = pytest.mark.django_db
URL = "/api/v1/clients/"


@pytest.fixture
def supervisor_key(personas):
    return factories.api_key_for(personas.supervisor, personas.tenant)[1]


def _get(api_client, key, **params):
    return api_client.get(URL, params, HTTP_AUTHORIZATION=f"Bearer {key}")


def test_pages_by_reference_until_the_last(api_client, personas, supervisor_key):
    first = _get(api_client, supervisor_key, limit=3).json()
    assert [c["ref"] for c in first["results"]] == ["carlos", "emma", "giulia"]
    assert first["results"][1] == {
        "ref": "emma",
        "display_name": personas.client.display_name,
        "language": personas.client.language,
        "created_at": personas.client.created_at.isoformat().replace("+00:00", "Z"),
    }
    assert first["next_offset"] == 3
    last = _get(api_client, supervisor_key, limit=3, offset=3).json()
    assert ([c["ref"] for c in last["results"]], last["next_offset"]) == (["marco"], None)
    beyond = _get(api_client, supervisor_key, offset=2**31 - 1).json()
    assert beyond == {"results": [], "next_offset": None}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": 2**31}, "offset"),
        ({"client": "emma"}, "client"),  # no such parameter: said, not ignored
    ],
)
def test_a_bad_parameter_is_named(api_client, personas, supervisor_key, params, field):
    response = _get(api_client, supervisor_key, **params)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
