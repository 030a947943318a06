"""A memory from long ago ranks like any other, and times memoryhub cannot rank are refused.

Recency is 0.5 ** (age / 14 days): for a memory of 1984 that is 0.5 ** 1100, below what
float8 holds, and PostgreSQL's power() raises rather than answering 0. Every score
component is total over its inputs; ingest, filters and imports refuse times before
1900-01-01 with a 400 naming the field. The day a memory tells of may be older ("last week"
said on 1900-01-01): what the write path stores, an import takes back."""

from datetime import UTC, datetime

import pytest

from memories.conf import setting
from memories.models import Memory
from memories.services.jobs.ranking import COMPONENTS as RANKED
from memories.services.jobs.runner import job_run
from memories.services.retrieval import ranking_weights
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db

SEARCH = {"client": "emma", "query": "how should we contact her? email", "explain": True}
CONTEXT = {"client": "emma", "message": "how should we contact her? email"}


def _call(api_client, key, path, body):
    return api_client.post(path, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")


@pytest.fixture
def used_key(api_client, agent_key):
    """The advisor's key, used once already (its first use is recorded on it)."""
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {agent_key}")
    return agent_key


@pytest.mark.parametrize("observed_at", ["1900-01-01T00:00:00Z", "1984-06-01T09:30:00Z"])
def test_a_memory_said_long_ago_still_lets_search_and_context_answer(
    api_client, agent_key, post_event, observed_at
):
    said = post_event("I prefer to be contacted by email.", observed_at=observed_at)
    (memory,) = said["memories"]
    assert memory["observed_at"] == observed_at

    search = _call(api_client, agent_key, "/api/v1/search/", SEARCH)
    context = _call(api_client, agent_key, "/api/v1/context/", CONTEXT)

    assert search.status_code == 200, search.content
    (hit,) = search.json()["results"]
    assert (hit["id"], hit["scores"]["recency"]) == (memory["id"], 0.0)
    assert context.status_code == 200, context.content
    assert [m["id"] for m in context.json()["memories"]] == [memory["id"]]


def test_a_row_older_than_ingest_takes_still_ranks(api_client, agent_key, personas):
    """Rows stored before the bound (or by code that bypassed the API) rank too: the year 1."""
    old = datetime(1, 1, 1, tzinfo=UTC)
    memory = factories.MemoryFactory.create(
        client=personas.client, content="I prefer to be contacted by email.", observed_at=old
    )
    Memory.objects.filter(pk=memory.pk).update(last_seen_at=old)

    search = _call(api_client, agent_key, "/api/v1/search/", SEARCH)
    context = _call(api_client, agent_key, "/api/v1/context/", CONTEXT)

    assert search.status_code == 200, search.content
    assert [(h["id"], h["scores"]["recency"]) for h in search.json()["results"]] == [
        (str(memory.pk), 0.0)
    ]
    assert context.status_code == 200, context.content


def test_the_ranking_refresh_ranks_a_memory_of_1984(personas):
    memory = factories.MemoryFactory.create(
        client=personas.client,
        content="I prefer to be contacted by email.",
        observed_at=datetime(1984, 6, 1, tzinfo=UTC),
        confidence=1.0,
        importance=1.0,
    )
    Memory.objects.filter(pk=memory.pk).update(last_seen_at=memory.observed_at)

    run = job_run("refresh_ranking")

    assert (run.outcome, run.error) == ("succeeded", "")
    memory.refresh_from_db()
    # Recency, usage and evidence contribute nothing; confidence, importance and
    # canonicity (active: 0.6) do.
    weights = {**ranking_weights(), "evidence": float(setting("RANK_EVIDENCE_WEIGHT"))}
    total = sum(weights[name] for name in RANKED)
    expected = (weights["confidence"] + weights["importance"] + 0.6 * weights["canonicity"]) / total
    assert memory.rank_score == round(expected, 4)


TOO_EARLY = "is before 1900-01-01T00:00:00Z, the earliest memoryhub accepts."


@pytest.mark.parametrize(
    "observed_at", ["0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "1900-01-01T00:30:00+01:00"]
)
def test_ingest_refuses_a_time_before_1900_and_stores_nothing(api_client, used_key, observed_at):
    before = take()
    body = {"client": "emma", "content": "I prefer email.", "observed_at": observed_at}

    response = _call(api_client, used_key, "/api/v1/events/", body)

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": f"observed_at: {observed_at} {TOO_EARLY}",
        "fields": {"observed_at": [f"{observed_at} {TOO_EARLY}"]},
    }
    assert take().changes(before) == []


def test_a_batch_with_one_time_before_1900_stores_nothing(api_client, used_key):
    before = take()
    events = [
        {"client": "emma", "content": "I prefer email."},
        {"client": "emma", "content": "I live in Leeds.", "observed_at": "0001-01-01"},
    ]

    response = _call(api_client, used_key, "/api/v1/events/batch/", {"events": events})

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "events[1].observed_at": [f"0001-01-01 {TOO_EARLY}"]
    }
    assert take().changes(before) == []


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("since", "0001-01-01T00:00:00Z", f"0001-01-01T00:00:00Z {TOO_EARLY}"),
        ("until", "1899-01-01T00:00:00Z", f"1899-01-01T00:00:00Z {TOO_EARLY}"),
        ("as_of", "1066-10-14T09:00:00Z", f"1066-10-14T09:00:00Z {TOO_EARLY}"),
        (
            "happened_since",
            "0001-01-01",
            "0001-01-01 is before 1900-01-01, the earliest memoryhub accepts.",
        ),
        (
            "happened_until",
            "1899-12-31",
            "1899-12-31 is before 1900-01-01, the earliest memoryhub accepts.",
        ),
    ],
)
def test_search_filters_refuse_times_before_1900(
    api_client, agent_key, personas, name, value, message
):
    response = _call(api_client, agent_key, "/api/v1/search/", {**SEARCH, "filters": {name: value}})

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {f"filters.{name}": [message]}


def test_the_page_filters_refuse_days_before_1900(client, personas):
    client.force_login(personas.advisor)

    response = client.get(f"/clients/{personas.client.pk}/", {"since": "0001-01-01", "q": "email"})

    assert response.status_code == 200
    assert response.context["mode"] == "invalid"
    assert response.context["form"].errors == {"since": ["Memory starts on 1900-01-01."]}


# What was said at the earliest time ingest takes, and what it resolves to: days before
# 1900 (last week's, yesterday's, and 999 years ago, the furthest back "N years ago"
# reaches), a plan's expiry, and a tool's observation that expires a day on. The write
# path stores all of them: the import takes back what it stored.
EARLIEST_SAID = [
    ("Last week I sold my car.", "1900-01-01T00:00:00Z", "chat"),
    ("My family came to Genoa 999 years ago.", "1900-01-01T00:00:00Z", "chat"),
    ("Yesterday I met my lawyer.", "1899-12-31T12:00:00-12:00", "chat"),  # the same instant
    ("Remind me to send the form by Friday.", "1900-01-01T00:00:00Z", "chat"),
    ("The portfolio was rebalanced last week.", "1900-01-01T00:00:00Z", "observation"),
]
EARLIEST = "1900-01-01T00:00:00+00:00"


def test_the_earliest_dates_a_client_holds_survive_export_erase_and_import(
    api_client, personas, post_event
):
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    for content, observed_at, source in EARLIEST_SAID:
        post_event(content, client="ana", key=key, observed_at=observed_at, source=source)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    exported = api_client.get("/api/v1/clients/ana/export/").json()
    assert [e["observed_at"] for e in exported["events"]] == [EARLIEST] * len(EARLIEST_SAID)
    assert sorted(
        (m["content"], m["occurred_on"], m["occurred_precision"], m["observed_at"], m["expires_at"])
        for m in exported["memories"]
    ) == [
        ("Last week I sold my car.", "1899-12-25", "week", EARLIEST, None),
        ("My family came to Genoa 999 years ago.", "0901-01-01", "year", EARLIEST, None),
        (
            "Remind me to send the form by Friday.",
            "1900-01-05",
            "day",
            EARLIEST,
            "1900-01-06T00:00:00+00:00",
        ),
        (
            "The portfolio was rebalanced last week.",
            "1899-12-25",
            "week",
            EARLIEST,
            "1900-01-02T00:00:00+00:00",
        ),
        ("Yesterday I met my lawyer.", "1899-12-31", "day", EARLIEST, None),
    ]
    assert api_client.delete("/api/v1/clients/ana/").status_code == 200

    response = api_client.post("/api/v1/clients/", exported, format="json")

    assert response.status_code == 201, response.content
    again = api_client.get("/api/v1/clients/ana/export/").json()
    for held in ("client", "sessions", "events", "memories", "relations"):
        assert again[held] == exported[held], held


def _llm_says(expires_in_days) -> dict:
    return {
        "memories": [
            {
                "event": 0,
                "content": "Send the form by Friday.",
                "kind": "operational",
                "category": "event",
                "confidence": 0.8,
                "importance": 0.3,
                "expires_in_days": expires_in_days,
                "attribute": "",
                "value": "",
                "negated": False,
            }
        ]
    }


def _held() -> list[tuple[str, datetime | None]]:
    return sorted(Memory.objects.values_list("content", "expires_at"))


@pytest.mark.parametrize("days", [-40000, -1e6, 1e9])
def test_an_llm_expiry_before_it_was_said_or_past_9999_is_no_answer(
    personas, post_event, settings, fake_provider, days
):
    """-40000 days from 1900 is 1790: stored and exported, then refused by the import; the
    others leave the years a time holds. The heuristic reads the event instead."""
    settings.MEMORYHUB = {"EXTRACTOR": "llm", "LLM_BASE_URL": fake_provider.base_url}
    fake_provider.chat_reply = _llm_says(days)

    post_event("Remind me to send the form by Friday.", observed_at="1900-01-01T00:00:00Z")

    assert _held() == [("Remind me to send the form by Friday.", datetime(1900, 1, 6, tzinfo=UTC))]


def test_an_llm_expiry_in_days_is_kept(personas, post_event, settings, fake_provider):
    settings.MEMORYHUB = {"EXTRACTOR": "llm", "LLM_BASE_URL": fake_provider.base_url}
    fake_provider.chat_reply = _llm_says(4.5)

    post_event("Remind me to send the form by Friday.", observed_at="1900-01-01T00:00:00Z")

    assert _held() == [  # the event's sentence stays on record beside the model's memory
        ("Remind me to send the form by Friday.", datetime(1900, 1, 6, tzinfo=UTC)),
        ("Send the form by Friday.", datetime(1900, 1, 5, 12, tzinfo=UTC)),
    ]
