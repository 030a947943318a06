"""POST /api/v1/events/: one event in, the memories it teaches out."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curation.models import ReviewItem
from memories.models import (
    AuditEntry,
    Client,
    ConflictPolicy,
    Event,
    Evidence,
    Memory,
    MemoryEmbedding,
    Relation,
    Session,
)
from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db

URL = "/api/v1/events/"


def post(api_client, key, **body):
    body.setdefault("client", "emma")
    return api_client.post(URL, body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")


@pytest.fixture
def say(post_event):
    return post_event


def test_an_event_is_stored_with_the_memories_it_teaches(say, api_client, agent_key, personas):
    body = say(
        "I prefer to be contacted by email.",
        session="s-1",
        external_id="e-1",
        speaker="client",
    )
    event = Event.objects.get()
    assert body["event"]["id"] == str(event.pk)
    assert body["event"]["client"] == "emma"
    assert body["event"]["session"] == "s-1"
    assert body["event"]["external_id"] == "e-1"
    [memory] = body["memories"]
    assert memory["action"] == "added"
    assert memory["kind"] == "semantic"
    assert memory["category"] == "preference"
    assert memory["content"] == "I prefer to be contacted by email."
    assert memory["related"] is None
    stored = Memory.objects.get(pk=memory["id"])
    assert stored.client == personas.client
    assert stored.attribute == "contact_channel"
    assert stored.attribute_value == "email"
    assert stored.needs_embedding is False
    assert MemoryEmbedding.objects.get(memory=stored).space.provider == "local"
    assert list(Evidence.objects.filter(memory=stored).values_list("event_id", flat=True)) == [
        event.pk
    ]
    assert AuditEntry.objects.filter(action="memory.added", object_id=str(stored.pk)).count() == 1


def test_small_talk_is_kept_as_an_event_but_teaches_nothing(say, api_client, agent_key, personas):
    body = say("Hi! Thanks a lot, have a nice day.")
    assert body["memories"] == []
    assert Event.objects.count() == 1
    assert Memory.objects.count() == 0


def test_the_assistants_own_words_teach_nothing_unless_asked(say, api_client, agent_key, personas):
    assert say("I prefer short answers.", speaker="assistant")["memories"] == []
    body = say(
        "I prefer short answers.",
        speaker="assistant",
        extract_from_assistant=True,
    )
    assert [m["action"] for m in body["memories"]] == ["added"]


def test_the_same_external_id_twice_stores_one_event_and_answers_the_same(
    api_client, agent_key, personas
):
    first = post(api_client, agent_key, content="I live in Bristol.", external_id="e-1")
    again = post(api_client, agent_key, content="I live in Bristol.", external_id="e-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Event.objects.count() == 1
    assert Memory.objects.count() == 1


def test_an_exact_restatement_is_deduplicated(say, api_client, agent_key, personas):
    first = say("I live in Bristol.", days_ago=3)["memories"][0]
    second = say("I live in Bristol.")["memories"][0]
    assert second["action"] == "deduplicated"
    assert second["id"] == first["id"]
    memory = Memory.objects.get()
    assert (memory.dup_count, memory.evidence_count) == (1, 2)
    assert memory.last_seen_at > memory.observed_at
    assert Evidence.objects.filter(memory=memory).count() == 2


def test_a_paraphrase_is_deduplicated(say, api_client, agent_key, personas):
    first = say("I prefer to be contacted by email.")["memories"][0]
    second = say("I'd rather you contact me by email.")["memories"][0]
    assert (second["action"], second["id"]) == ("deduplicated", first["id"])
    assert Memory.objects.count() == 1


def test_a_near_identical_wording_is_deduplicated_by_similarity(
    say, api_client, agent_key, personas
):
    first = say("I love hiking in the mountains.")["memories"][0]
    second = say("I really love hiking in the mountains.")["memories"][0]
    assert (second["action"], second["id"]) == ("deduplicated", first["id"])


def test_different_facts_are_kept_apart(say, api_client, agent_key, personas):
    say("I have two children.")
    say("I live in Bristol.")
    say("I work at Lloyds Bank.")
    assert Memory.objects.count() == 3


def test_a_newer_explicit_statement_supersedes_the_old_one(say, api_client, agent_key, personas):
    old = say("I prefer to be contacted by email.", days_ago=5)
    new = say("I prefer to be contacted by phone.")
    [memory] = new["memories"]
    assert memory["action"] == "updated"
    assert memory["related"] == {"id": old["memories"][0]["id"], "status": "superseded"}
    superseded = Memory.objects.get(pk=old["memories"][0]["id"])
    assert superseded.status == "superseded"
    assert superseded.content == "I prefer to be contacted by email."  # never rewritten
    assert superseded.invalidated_at is not None
    assert Relation.objects.get().type == "updates"
    assert ReviewItem.objects.count() == 0


def test_a_changed_number_supersedes(say, api_client, agent_key, personas):
    say("I have two children.", days_ago=30)
    body = say("I have three children.")
    assert body["memories"][0]["action"] == "updated"
    assert Memory.objects.live().get().content == "I have three children."


def test_contradicting_a_promoted_memory_opens_a_review(say, api_client, agent_key, personas):
    old = say("I prefer to be contacted by email.", days_ago=5)
    Memory.objects.filter(pk=old["memories"][0]["id"]).update(status="promoted")
    body = say("I prefer to be contacted by phone.")
    [memory] = body["memories"]
    assert memory["action"] == "conflict"
    assert memory["related"] == {"id": old["memories"][0]["id"], "status": "promoted"}
    review = ReviewItem.objects.get()
    assert (review.type, review.state) == ("conflict", "open")
    assert str(review.memory_id) == memory["id"]
    assert str(review.other_memory_id) == old["memories"][0]["id"]
    assert Relation.objects.get().type == "conflicts_with"


def test_an_older_statement_does_not_supersede_a_newer_one(say, api_client, agent_key, personas):
    say("I prefer to be contacted by email.")
    body = say("I prefer to be contacted by phone.", days_ago=10)
    assert body["memories"][0]["action"] == "conflict"
    assert Memory.objects.filter(status="superseded").count() == 0
    assert ReviewItem.objects.count() == 1


def test_a_tenant_may_ask_for_review_of_every_contradiction(say, api_client, agent_key, personas):
    personas.tenant.conflict_policy = ConflictPolicy.ALWAYS_REVIEW
    personas.tenant.save()
    say("I prefer to be contacted by email.", days_ago=5)
    body = say("I prefer to be contacted by phone.")
    assert body["memories"][0]["action"] == "conflict"


def test_a_negation_contradicts(say, api_client, agent_key, personas):
    say("I like crypto investments.", days_ago=5)
    body = say("I don't like crypto investments.")
    assert body["memories"][0]["action"] == "updated"


def test_an_advisor_cannot_tell_an_unknown_reference_from_another_advisors_client(
    api_client, agent_key, personas
):
    """Where advisors do not create clients (the default), posting about a reference that
    is not theirs answers the same whether someone else's client has it or nobody does."""

    def post(ref: str):
        response = api_client.post(
            "/api/v1/events/",
            {"client": ref, "content": "I live in Leeds."},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {agent_key}",
        )
        return response.status_code, json.dumps(response.json()).replace(ref, "REF")

    assert post("carlos") == post("nobody-yet")
    assert post("carlos")[0] == 404
    assert not Client.objects.filter(external_ref="nobody-yet").exists()


def test_a_supervisor_creates_a_client_by_posting_about_it(say, personas):
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    say("I live in Leeds.", client="new-client", key=key)
    assert Client.objects.filter(tenant=personas.tenant, external_ref="new-client").exists()


def test_a_new_client_is_created_and_assigned_to_the_advisor_where_the_tenant_allows_it(
    say, api_client, agent_key, personas
):
    personas.tenant.advisors_create_clients = True
    personas.tenant.save(update_fields=["advisors_create_clients"])
    say("I live in Leeds.", client="new-client")
    client = Client.objects.get(tenant=personas.tenant, external_ref="new-client")
    assert personas.advisor.has_perm("memories.advise_client", client)


def test_the_same_reference_in_another_tenant_is_another_client(say, api_client, personas):
    _, key = factories.api_key_for(personas.outsider, personas.other_tenant)
    say("I live in Oslo.", key=key)
    assert Memory.objects.get().client == personas.foreign_client
    assert personas.client.memories.count() == 0


def test_more_detail_extends_without_replacing(say, personas):
    old = say("We are planning to buy a house.", days_ago=3)["memories"][0]
    new = say("We are planning to buy a house in Bristol with a big garden.")["memories"][0]
    assert new["action"] == "extended"
    assert new["related"] == {"id": old["id"], "status": "active"}
    assert Relation.objects.get().type == "extends"
    assert Memory.objects.live().count() == 2


def test_the_answer_has_the_documented_shape(say, personas):
    from memories.api.outputs import EventOutSerializer, OutcomeSerializer

    body = say("I live in Bristol.", session="s-9", external_id="x-1")
    assert set(body["event"]) == set(EventOutSerializer().fields)
    assert set(body["memories"][0]) == set(OutcomeSerializer().fields)
    event = Event.objects.get()
    assert body["event"] == {
        **EventOutSerializer(event).data,
        "id": str(event.pk),
    }


def test_one_event_costs_a_known_number_of_statements(api_client, agent_key, personas):
    """An advisor's agent posting one statement about a client it advises: each statement
    here is one the write path needs (bench/load.py measures what they cost). The count
    changes only on purpose: a permission asked twice, or a read per memory, shows here."""
    assert post(api_client, agent_key, content="I prefer email.").status_code == 201
    with CaptureQueriesContext(connection) as statements:
        answer = post(api_client, agent_key, content="My daughter Sofia starts in Bologna.")
    assert answer.status_code == 201
    # The key and its tenant; the rate window; the client; may the advisor see it; what is
    # said already; savepoint, client lock, the client's live memories, the event, its
    # neighbours; the memory, its lexemes, vector, evidence and audit; the message's vector;
    # profile staleness; release. (A tenant with no active webhook endpoint reads none: the
    # key's statement says so.)
    assert len(statements.captured_queries) == 18, [q["sql"][:80] for q in statements]


def test_an_event_in_a_session_costs_two_statements_more(api_client, agent_key, personas):
    """The turn before it in the session (its context), and the session itself: created
    or widened to the event's time in one statement, whether it is new or not."""
    assert post(api_client, agent_key, content="I prefer email.", session="s-1").status_code == 201
    said = {"s-1": "My daughter Sofia starts in Bologna.", "s-2": "My son Luca lives in Milan."}
    for session in ("s-1", "s-2"):  # a session seen before, and a new one
        with CaptureQueriesContext(connection) as statements:
            answer = post(api_client, agent_key, content=said[session], session=session)
        assert answer.status_code == 201
        assert len(statements.captured_queries) == 20, [q["sql"][:80] for q in statements]
    first, second = Session.objects.filter(client=personas.client).order_by("external_ref")
    assert first.events.count() == 2 and second.events.count() == 1
    latest = first.events.latest("observed_at").observed_at
    assert first.last_event_at == latest and first.started_at <= latest


@pytest.mark.parametrize("persona", ["client_user", "heir"])
def test_a_read_only_key_cannot_tell_which_references_exist(api_client, personas, persona):
    """References are people's names: a key that may not write is refused the same way
    about another client, its own, and a reference nobody has, and nothing is stored."""
    _, key = factories.api_key_for(getattr(personas, persona), personas.tenant)
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {key}")  # last_used_at

    def answer(ref: str):
        response = post(api_client, key, client=ref, content="I live in Leeds.")
        return response.status_code, json.dumps(response.json()).replace(ref, "REF")

    with unchanged():
        answers = {ref: answer(ref) for ref in ("carlos", "emma", "marco", "nobody-yet")}
    assert set(answers.values()) == {
        (
            403,
            json.dumps(
                {
                    "error": {
                        "code": "permission_denied",
                        "message": "This role has read-only access to memory.",
                        "fields": {},
                    }
                }
            ),
        )
    }, answers
