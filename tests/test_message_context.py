"""A memory is read in the light of the message it was said in: each message that yields
memories has a vector of its own (stored at ingest, or by the reembed job for messages
stored before), and search's ``context`` component is the question's cosine to it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memories.models import Event, EventEmbedding, Memory, Role
from memories.services.embedding import providers
from memories.services.embedding.reembed import messages_embed
from memories.services.jobs.runner import job_run
from memories.services.retrieval import memories_search, ranking_weights
from memories.services.tenancy.encryption import tenant_create, tenant_vectors_drop
from tests.support import factories

pytestmark = pytest.mark.django_db

URL = "/api/v1/events/batch/"
MEASURED = (
    "I've been measuring the login API response time this week, and it's currently at "
    "180 ms under 20 concurrent requests, so can you review my caching code?"
)
OTHERS = [
    "I'm repainting the garden fence this weekend, and it's currently at 3 coats after "
    "2 days, so what brush should I buy?",
    "My son wants to start piano lessons with Mrs Hall, but honestly it costs 900 pounds "
    "for the term.",
]
# The sentence of MEASURED that says the figure, without saying what it measures.
FIGURE = "and it's currently at 180 ms under 20 concurrent requests"


def _post(api_client, key, contents, *, client="emma", first_id=0):
    events = [
        {"client": client, "content": c, "external_id": str(first_id + i)}
        for i, c in enumerate(contents)
    ]
    response = api_client.post(
        URL, {"events": events}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def _cosine(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _ranks(hits) -> dict[str, int]:
    return {h.memory.content: i for i, h in enumerate(hits)}


def test_a_sentence_is_found_by_what_its_message_is_about(api_client, agent_key, personas):
    _post(api_client, agent_key, [MEASURED, *OTHERS])
    figure = Memory.objects.get(content=FIGURE)  # its message was read in two memories
    hits = memories_search(client=figure.client, query="How fast is the login API?")
    ranks = _ranks(hits)
    # Its own words say nothing of the login API; its message does.
    assert ranks[FIGURE] < min(ranks[other] for other in OTHERS)
    scores = hits[ranks[FIGURE]].scores
    assert scores["context"] > scores["semantic"]
    message = EventEmbedding.objects.get(event__content=MEASURED)
    query = providers.get_chain().embed(["How fast is the login API?"], input_type="query")
    assert scores["context"] == pytest.approx(_cosine(message.vector, query.vectors[0]), abs=2e-3)


def test_a_memory_that_is_its_whole_message_is_its_own_context(api_client, agent_key, personas):
    _post(api_client, agent_key, OTHERS)
    hits = memories_search(client=Memory.objects.earliest("pk").client, query="piano lessons")
    assert hits
    assert all(h.scores["context"] == h.scores["semantic"] for h in hits)


def test_each_message_that_yields_memories_has_one_vector(api_client, agent_key, personas):
    contents = [MEASURED, "Thanks, bye!", OTHERS[0]]
    first = _post(api_client, agent_key, contents)
    assert [len(r["memories"]) > 0 for r in first["results"]] == [True, False, True]
    stored = EventEmbedding.objects.values_list("event__content", flat=True)
    assert sorted(stored) == sorted([MEASURED, OTHERS[0]])
    _post(api_client, agent_key, contents)  # replayed: nothing new
    assert EventEmbedding.objects.count() == 2
    for vector in EventEmbedding.objects.select_related("event"):
        assert vector.client_id == vector.event.client_id
        assert vector.tenant_id == vector.event.tenant_id


def test_messages_stored_before_get_their_vectors_from_the_reembed_job(
    api_client, agent_key, personas
):
    _post(api_client, agent_key, [MEASURED, *OTHERS])
    client = Memory.objects.earliest("pk").client
    before = {e.event_id: list(e.vector) for e in EventEmbedding.objects.all()}
    ranked = [h.memory.pk for h in memories_search(client=client, query="login API speed")]
    EventEmbedding.objects.all().delete()  # as a message stored before messages had vectors
    without = memories_search(client=client, query="login API speed")
    assert all(h.scores["context"] == h.scores["semantic"] for h in without)
    run = job_run("reembed")
    assert run.counts["messages"] == 3
    after = {e.event_id: list(e.vector) for e in EventEmbedding.objects.all()}
    assert after.keys() == before.keys()
    assert all(_cosine(after[k], before[k]) > 0.999 for k in before)
    assert [h.memory.pk for h in memories_search(client=client, query="login API speed")] == ranked
    assert messages_embed()["embedded"] == 0  # nothing left


def test_a_message_that_yielded_nothing_gets_no_vector_from_the_job(
    api_client, agent_key, personas
):
    _post(api_client, agent_key, ["Thanks, bye!", "ok"])
    assert Event.objects.count() == 2
    assert messages_embed() == {"embedded": 0, "failed": 0}
    assert not EventEmbedding.objects.exists()


def test_a_tenant_without_vector_search_stores_no_message_vectors(api_client, agent_key, personas):
    personas.tenant.vector_search_enabled = False
    personas.tenant.save(update_fields=["vector_search_enabled"])
    _post(api_client, agent_key, [MEASURED])
    assert Memory.objects.exists()
    assert messages_embed()["embedded"] == 0
    assert not EventEmbedding.objects.exists()


def test_a_sealed_secret_never_reaches_the_provider_with_its_message(
    api_client, remote_providers, django_capture_on_commit_callbacks
):
    """An encrypted tenant may keep the secrets said sealed in the event; the message's
    vector is still of the text with the secret withheld, at ingest and from the job."""
    tenant = tenant_create(slug="vault", name="Vault", encrypted=True)
    tenant.secrets_kept_sealed = True
    tenant.save(update_fields=["secrets_kept_sealed"])
    user = factories.UserFactory.create(username="vault-agent")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    _, key = factories.api_key_for(user, tenant)
    said = (
        "I rotated the bank login yesterday, and my new password is Tr0ub4dor&3, "
        "so please remind me to update the budgeting app."
    )
    with django_capture_on_commit_callbacks(execute=True):
        _post(api_client, key, [said], client="ada")
    assert Event.objects.get(tenant=tenant).content == said  # kept, sealed at rest
    assert EventEmbedding.objects.filter(tenant=tenant).count() == 1
    EventEmbedding.objects.all().delete()
    assert messages_embed(tenant_id=tenant.pk)["embedded"] == 1
    sent = json.dumps([r["body"] for r in remote_providers.requests])
    assert "rotated the bank login" in sent  # the message itself was sent, twice
    assert "Tr0ub4dor&3" not in sent


def test_turning_vector_search_off_drops_the_messages_vectors_too(api_client, agent_key, personas):
    _post(api_client, agent_key, [MEASURED, *OTHERS])
    assert EventEmbedding.objects.filter(tenant=personas.tenant).count() == 3
    tenant_vectors_drop(tenant=personas.tenant)
    assert not EventEmbedding.objects.filter(tenant=personas.tenant).exists()
    assert messages_embed()["embedded"] == 0  # and the job makes none again


def test_a_message_read_as_its_one_memory_costs_no_embedding(api_client, agent_key, personas):
    """A message whose one memory keeps most of it is read as that memory: its vector is
    the memory's, and the call embeds one text, not two."""
    said = "Well, I moved to Bristol with my two cats last spring."
    _post(api_client, agent_key, [said])
    (memory,) = Memory.objects.all()
    assert memory.content != said and len(memory.content) >= 0.8 * len(said)
    message = EventEmbedding.objects.get()
    assert list(message.vector) == list(memory.embeddings.get().vector)


def test_an_installation_that_turns_message_vectors_off_embeds_no_message(
    api_client, agent_key, personas, monkeypatch
):
    """``MEMORYHUB_MESSAGE_VECTORS=false`` trades the context for ingest time: no message is
    embedded, at ingest or by the job, and each memory is read as its own context."""
    monkeypatch.setenv("MEMORYHUB_MESSAGE_VECTORS", "false")
    first = _post(api_client, agent_key, [MEASURED, *OTHERS])
    assert all(r["memories"] for r in first["results"])
    assert not EventEmbedding.objects.exists()
    assert messages_embed()["embedded"] == 0
    hits = memories_search(client=Memory.objects.earliest("pk").client, query="login API speed")
    assert hits
    assert all(h.scores["context"] == h.scores["semantic"] for h in hits)
    # ranked as before messages had vectors: the meaning alone, at its weight then
    assert ranking_weights()["context"] == 0.0
    assert ranking_weights()["semantic"] == 0.6
    monkeypatch.setenv("MEMORYHUB_MESSAGE_VECTORS", "true")  # turned on again: the job fills in
    assert messages_embed()["embedded"] == 3
    assert EventEmbedding.objects.count() == 3


# One client's spending, said twice: the newer value in a clause of its own.
SPENDING = [
    "I've started bulk ordering organic coffee beans from Bean Box, spending $60 monthly, "
    "can you give me tips on brewing them well?",
    "I'm trying to manage my monthly spending on organic coffee beans from Bean Box, which "
    "has increased to $75, can you help me bring it down?",
]


def test_a_newer_value_said_beside_its_subject_outranks_the_older(api_client, agent_key, personas):
    """The memory that names the subject does not hold the new figure, its message does:
    the two messages are read to tell that the later one changes the value."""
    _post(api_client, agent_key, SPENDING)
    client = Memory.objects.earliest("pk").client
    hits = memories_search(
        client=client,
        query="How much do I spend monthly on organic coffee beans from Bean Box?",
        with_evidence=True,
    )
    first: dict[str, tuple] = {}
    for rank, hit in enumerate(hits):
        for evidence in hit.evidence:
            first.setdefault(evidence["external_id"], (rank, hit))
    (new_rank, _), (old_rank, old) = first["1"], first["0"]
    assert new_rank < old_rank
    assert old.scores["outdated"] == 1.0


def test_a_message_that_asks_is_kept_with_the_figures_it_tells(api_client, agent_key, personas):
    """A question that tells a figure is kept whole, though it names no one but another
    person; a question that tells nothing is not."""
    asked = (
        "What's the best way to help Scott keep his homework completion rate of 92% "
        "through June, considering how hard he works?"
    )
    _post(api_client, agent_key, [asked, "How was your weekend?"])
    assert list(Memory.objects.values_list("content", flat=True)) == [asked]


# One quantity, measured twice in long messages that say much else: the two messages are
# less alike than a statement said again (RESTATED), alike enough to be one subject.
LATENCY = [
    "I've been measuring the checkout API response time this week and it's currently at "
    "340ms under 50 concurrent requests. I want to optimise it further by caching the "
    "product catalogue, can you review my Redis setup and tell me what to change?",
    "I'm reworking the checkout API after profiling the database layer, and its response "
    "time has dropped to 210ms under 50 concurrent requests, but the ESLint warnings keep "
    "piling up and my teammate wants a code review process before Friday, any advice?",
]
# The same pair, the newer naming another measure: no value of the older's changes.
RECOUNTED = [
    LATENCY[0],
    "I'm reworking the checkout API after profiling the database layer, and its response "
    "time has improved since I split it into 3 services under 50 concurrent requests, but the "
    "ESLint warnings keep piling up and my teammate wants a code review process before "
    "Friday, any advice?",
]


def _messages_cosine() -> float:
    first, second = EventEmbedding.objects.order_by("event__external_id")
    return _cosine(first.vector, second.vector)


@pytest.mark.parametrize(("messages", "outdated"), [(LATENCY, True), (RECOUNTED, False)])
def test_a_quantity_given_another_value_is_its_newer_version(
    api_client, agent_key, personas, messages, outdated
):
    """Messages that speak of one subject among other things are not close enough to be the
    same statement; that the later one gives what the earlier measures another value ("340ms"
    → "210ms", said with a word of change) makes it the newer version. Another number, of
    something else ("3 services"), does not."""
    from memories.services.retrieval.statement import RESTATED, VERSION_FLOOR

    _post(api_client, agent_key, messages)
    assert VERSION_FLOOR <= _messages_cosine() < RESTATED
    client = Memory.objects.earliest("pk").client
    hits = memories_search(
        client=client,
        query="What is the checkout API response time under 50 concurrent requests?",
        with_evidence=True,
    )
    old = next(h for h in hits if any(e["external_id"] == "0" for e in h.evidence))
    assert old.scores["outdated"] == (1.0 if outdated else 0.0)
    if outdated:
        newer = min(
            i for i, h in enumerate(hits) if any(e["external_id"] == "1" for e in h.evidence)
        )
        assert newer < hits.index(old)


# A count said again with another value, and no word that says it changed.
SKETCHES = [
    "I've been sketching mechanical objects since March 10 and I've completed 3 sketches by "
    "March 14, can this really help with stress relief?",
    "I've completed 5 sketches by March 15, and I'm wondering how I can use this creative "
    "outlet to cope with a stressful week at work.",
]
# A later message that says it changes something, but not the count asked about, then one
# that gives the count another value.
UPLOADS = [
    "I've scanned and uploaded 25 supporting documents to the immigration portal on April 9, "
    "is that enough for my application?",
    "I've now confirmed the immigration portal upload of my application on October 29, what "
    "happens next?",
    "I've uploaded 30 supporting documents to the immigration portal, including recent "
    "financial statements, is that enough for my application?",
]


@pytest.mark.parametrize(
    ("messages", "query", "newer"),
    [
        (SKETCHES, "How many mechanical sketches have I completed so far?", "1"),
        (SKETCHES, "Which objects have I been sketching to relieve stress?", None),
        (UPLOADS, "How many supporting documents have I uploaded to the portal?", "2"),
    ],
)
def test_the_value_a_question_asks_decides_the_newer_version(
    api_client, agent_key, personas, messages, query, newer
):
    """A question that says what it asks the value of ("how many sketches") compares two
    statements on that value: "5 sketches" after "3 sketches" is the newer version without
    a word of change, and goes just before it. Asked nothing of the kind, neither outdates
    the other. A later message that gives the count another value goes before one that
    says it changed something else (a day)."""
    _post(api_client, agent_key, messages)
    client = Memory.objects.earliest("pk").client
    hits = memories_search(client=client, query=query, with_evidence=True)
    first: dict[str, tuple] = {}
    for rank, hit in enumerate(hits):
        for evidence in hit.evidence:
            first.setdefault(evidence["external_id"], (rank, hit))
    old_rank, old = first["0"]
    assert old.scores["outdated"] == (0.0 if newer is None else 1.0)
    if newer is not None:
        assert first[newer][0] == old_rank - 1
