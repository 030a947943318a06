"""Input that parses but cannot be held answers 400 saying what is wrong, and stores
nothing: lone surrogates, numbers beyond a double, nesting deeper than anything memoryhub
writes, and a NUL where a client reference belongs. None of it is a 500."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories import jsonbody
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db

SURROGATE = "This text holds a lone UTF-16 surrogate (such as \\ud800), which is not valid Unicode."
OUT_OF_RANGE = "This number is out of range: numbers must be finite and within about ±1.8e308."
TOO_DEEP = "The JSON is nested more than 64 levels deep."


@pytest.fixture
def key(api_client, personas):
    """A supervisor's key, used once (its first use is recorded on it) before any snapshot."""
    _, raw = factories.api_key_for(personas.supervisor, personas.tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    api_client.get("/api/v1/health/")
    return raw


def _raw(api_client, path, text, method="post"):
    return getattr(api_client, method)(path, text, content_type="application/json")


def _event_with(metadata_json: str) -> str:
    return '{"client": "emma", "content": "I live in Rome.", "metadata": ' + metadata_json + "}"


@pytest.mark.parametrize(
    ("metadata", "field", "message"),
    [
        ('{"\\ud800": "a key"}', "metadata.\\ud800", SURROGATE),
        ('{"city": "Ro\\udfffme"}', "metadata.city", SURROGATE),
        ('{"list": ["ok", "\\ud800"]}', "metadata.list[1]", SURROGATE),
        ('{"amount": 1e400}', "metadata.amount", OUT_OF_RANGE),
        ('{"amount": -1e400}', "metadata.amount", OUT_OF_RANGE),
        ('{"amount": NaN}', "metadata.amount", OUT_OF_RANGE),
        ('{"amount": Infinity}', "metadata.amount", OUT_OF_RANGE),
    ],
)
def test_metadata_that_cannot_be_stored_is_named(api_client, key, metadata, field, message):
    before = take()

    response = _raw(api_client, "/api/v1/events/", _event_with(metadata))

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": f"{field}: {message}",
        "fields": {field: [message]},
    }
    assert take().changes(before) == []


def test_a_lone_surrogate_in_content_is_named(api_client, key):
    before = take()

    response = _raw(api_client, "/api/v1/events/", '{"client": "emma", "content": "Hi \\ud800"}')

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"content": [SURROGATE]}
    assert take().changes(before) == []


def test_in_a_batch_the_event_is_named(api_client, key):
    before = take()
    body = '{"events": [{"client": "emma", "content": "Hi."}, ' + _event_with('{"n": 1e999}') + "]}"

    response = _raw(api_client, "/api/v1/events/batch/", body)

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"events[1].metadata.n": [OUT_OF_RANGE]}
    assert take().changes(before) == []


def _nested(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [40, 330])
def test_deep_metadata_is_refused(api_client, key, depth):
    before = take()

    response = _raw(api_client, "/api/v1/events/", _event_with(_nested(depth)))

    assert response.status_code == 400
    if depth == 40:  # within what the parser takes, beyond what metadata may nest
        message = "metadata is nested 40 levels deep; the limit is 32."
        assert response.json()["error"] == {
            "code": "invalid",
            "message": f"metadata: {message}",
            "fields": {"metadata": [message]},
        }
    else:
        assert response.json()["error"] == {
            "code": "parse_error",
            "message": TOO_DEEP,
            "fields": {},
        }
    assert take().changes(before) == []


# Every endpoint that reads a JSON body ("{memory}" and "{review}" filled in).
JSON_ENDPOINTS = [
    ("post", "/api/v1/events/"),
    ("post", "/api/v1/events/batch/"),
    ("post", "/api/v1/search/"),
    ("post", "/api/v1/context/"),
    ("post", "/api/v1/clients/"),
    ("delete", "/api/v1/memories/{memory}/"),
    ("post", "/api/v1/memories/{memory}/feedback/"),
    ("post", "/api/v1/review/{review}/decide/"),
]


@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
@pytest.mark.parametrize("depth", [70, 950, 100_000])
def test_any_body_nested_too_deep_is_a_400(api_client, key, personas, method, path, depth):
    old = factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    new = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    review = factories.ReviewItemFactory.create(memory=new, other_memory=old)
    before = take()

    response = _raw(
        api_client, path.format(memory=old.pk, review=review.pk), "[" * depth + "]" * depth, method
    )

    assert response.status_code == 400
    assert response.json()["error"] == {"code": "parse_error", "message": TOO_DEEP, "fields": {}}
    assert take().changes(before) == []


def test_the_checks_need_no_recursion():
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(jsonbody.Unfit, match="nested more than 64 levels"):
        jsonbody.check(deep)
    assert jsonbody.depth_of(deep) == 50_001
    assert list(jsonbody.strings({"a": [{"b": "c"}]})) == ["a", "b", "c"]


# --- a NUL where a client reference belongs --------------------------------------------

PERSONAS = ["advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir"]


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/clients/%00/export/"),
        ("delete", "/api/v1/clients/%00/"),
        ("get", "/api/v1/clients/emma%00/export/"),
        ("delete", "/api/v1/clients/emma%00/"),
    ],
)
def test_a_nul_in_a_client_reference_is_not_found_for_every_role(
    api_client, personas, persona, method, path
):
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, raw = factories.api_key_for(getattr(personas, persona), tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    api_client.get("/api/v1/health/")
    before = take()

    response = getattr(api_client, method)(path)

    assert response.status_code == 404
    ref = path.split("/")[4].replace("%00", "\x00")
    assert response.json()["error"] == {
        "code": "not_found",
        "message": f"Client {ref!r} not found.",
        "fields": {},
    }
    assert take().changes(before) == []


def test_without_a_key_a_nul_reference_is_401(api_client, personas):
    before = take()
    assert api_client.get("/api/v1/clients/%00/export/").status_code == 401
    assert api_client.delete("/api/v1/clients/%00/").status_code == 401
    assert take().changes(before) == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/search/", {"client": "em\x00ma", "query": "email"}),
        ("/api/v1/context/", {"client": "\x00", "message": "email"}),
        ("/api/v1/events/", {"client": "\x00", "content": "I live in Rome."}),
        ("/api/v1/events/", {"client": "emma", "session": "\x00", "content": "I live in Rome."}),
    ],
)
def test_a_nul_in_a_reference_in_the_body_is_named(api_client, key, path, body):
    before = take()

    response = api_client.post(path, body, format="json")

    assert response.status_code == 400
    (field,) = [name for name, value in body.items() if "\x00" in value]
    assert response.json()["error"]["fields"] == {field: ["Null characters are not allowed."]}
    assert take().changes(before) == []


def test_a_nul_in_the_memory_list_query_is_named(api_client, key):
    response = api_client.get("/api/v1/memories/?client=%00")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"client": ["Null characters are not allowed."]}


def test_a_nul_in_the_client_list_search_finds_what_the_rest_finds(client, personas):
    client.force_login(personas.advisor)

    response = client.get("/clients/", {"q": "em\x00ma"})

    assert response.status_code == 200
    assert [c.external_ref for c in response.context["page"]] == ["emma"]


# --- imports --------------------------------------------------------------------------


def _document(**event) -> dict:
    return {
        "format": "memoryhub.client-export/1",
        "tenant": "acme",
        "client": {
            "id": "7e5a0c3b-1d2f-4a6b-9c8d-0e1f2a3b4c5d",
            "external_ref": "zoe",
            "display_name": "Zoe",
            "language": "en",
            "created_at": "2026-11-01T09:00:00+00:00",
        },
        "sessions": [],
        "events": [
            {
                "id": "1b0f6a52-3c1e-4f55-9a7d-2f4c1e0d9b11",
                "session": None,
                "source": "chat",
                "speaker": "client",
                "content": "I live in Rome.",
                "external_id": "",
                "observed_at": "2026-11-01T09:00:00+00:00",
                "received_at": "2026-11-01T09:00:00+00:00",
                "agent": "",
                "entities": [],
                "metadata": {},
                **event,
            }
        ],
        **{name: [] for name in ("memories", "relations", "review_items", "audit")},
        "profile": None,
    }


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"content": "I live\x00 in Rome."}, "events[0].content", "may not hold a NUL character"),
        ({"metadata": {"k": "\x00"}}, "events[0].metadata", "may not hold a NUL character"),
        ({"observed_at": "0001-01-01T00:00:00+00:00"}, "events[0].observed_at", "1900-01-01"),
        ({"received_at": "9999-12-31T23:59:59-01:00"}, "events[0].received_at", "ISO 8601"),
    ],
)
def test_an_import_with_what_cannot_be_stored_names_it(api_client, key, change, field, message):
    before = take()

    response = api_client.post("/api/v1/clients/", _document(**change), format="json")

    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == [field]
    assert message in fields[field][0]
    assert take().changes(before) == []


def test_the_import_command_refuses_what_cannot_be_stored(personas, tmp_path):
    path = tmp_path / "zoe.json"
    path.write_text(json.dumps(_document()).replace('"metadata": {}', '"metadata": {"n": 1e400}'))
    before = take()

    with pytest.raises(CommandError) as raised:
        call_command("import_client", str(path), "--tenant", "acme")

    assert str(raised.value) == f"cannot import {path} at events[0].metadata.n: {OUT_OF_RANGE}"
    assert take().changes(before) == []


# --- content that shows nothing -------------------------------------------------------

INVISIBLE = (
    "Content shows nothing: it holds only invisible characters (zero-width spaces or "
    "joiners, format or filler characters)."
)


@pytest.mark.parametrize(
    "content",
    [
        "\u200b",
        "\u200b\u200c\u200d\u2060\ufeff",
        " \u200b \u2060 ",
        "\u00ad\u200e\u200f\u202a\u202c",
        "\u3164\u115f\uffa0\u2800",
    ],
)
def test_content_of_invisible_characters_is_refused_like_empty_content(api_client, key, content):
    before = take()

    one = api_client.post("/api/v1/events/", {"client": "emma", "content": content}, format="json")
    batch = api_client.post(
        "/api/v1/events/batch/",
        {"events": [{"client": "emma", "content": "Hi."}, {"client": "emma", "content": content}]},
        format="json",
    )

    assert one.status_code == 400
    assert one.json()["error"] == {
        "code": "invalid",
        "message": f"content: {INVISIBLE}",
        "fields": {"content": [INVISIBLE]},
    }
    assert batch.status_code == 400
    assert batch.json()["error"]["fields"] == {"events[1].content": [INVISIBLE]}
    assert take().changes(before) == []


def test_text_joined_by_zero_width_characters_is_kept(api_client, key):
    family = "My family: \U0001f468\u200d\U0001f469\u200d\U0001f467."

    response = api_client.post(
        "/api/v1/events/", {"client": "emma", "content": family}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["event"]["content"] == family


def test_the_schema_pattern_says_what_content_needs():
    import re

    from memories.api.fields import HAS_VISIBLE_TEXT
    from memories.text import has_text

    pattern = re.compile(HAS_VISIBLE_TEXT)
    for char in map(chr, [*range(0xD800), *range(0xE000, 0x10000)]):
        assert bool(pattern.search(char)) == has_text(char), hex(ord(char))


def test_a_charset_that_is_not_text_is_a_400(api_client, key):
    """(A charset Python does not know at all is left out by Django: the body is UTF-8.)"""
    response = api_client.post(
        "/api/v1/events/",
        '{"client": "emma", "content": "I live in Rome."}',
        content_type="application/json; charset=base64",
    )

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "parse_error",
        "message": "Unsupported charset 'base64'.",
        "fields": {},
    }
