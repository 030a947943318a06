"""Secrets said in conversation stay out of memory, in English, Italian and Spanish: the
memories, their vectors' texts, the text index, the turn-before context and the event
itself hold placeholders (an encrypted tenant may keep the event sealed), each event is
audited with the kinds withheld. IBANs and account numbers stay in memory but are masked
in webhook deliveries and in what a remote embedding provider is sent, unless the tenant
shares them."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from memories.models import AuditEntry, Event, Memory, Role, WebhookDelivery
from memories.services.secrets import withheld
from memories.services.tenancy.encryption import tenant_create
from tests.support import factories
from tests.support.webhook_receiver import WebhookReceiver

pytestmark = pytest.mark.django_db

# What was said: (the secret, its kind, whether the sentence says anything else and so
# leaves a memory).
SAID = {
    "My new password is Tr0ub4dor&3, I changed it yesterday.": ("Tr0ub4dor&3", "password", True),
    "La mia password della banca è Gatto.2024, non dirla a nessuno.": (
        "Gatto.2024",
        "password",
        True,
    ),
    "Mi contraseña es Sol-Luna9 y la cambio cada mes.": ("Sol-Luna9", "password", True),
    "Il PIN del bancomat è 4821.": ("4821", "pin", False),
    "My Visa card is 4111 1111 1111 1111, CVV 737, expires 04/27.": (
        "4111 1111 1111 1111",
        "card",
        False,
    ),
    "Mi tarjeta es 5500-0000-0000-0004 y el código de seguridad es 123.": (
        "5500-0000-0000-0004",
        "card",
        False,
    ),
    "Here is my OpenAI key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789, can you check it?": (
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "api_key",
        True,
    ),
    "Our AWS access key is AKIAIOSFODNN7EXAMPLE for the backups.": (
        "AKIAIOSFODNN7EXAMPLE",
        "api_key",
        True,
    ),
}
NOT_SECRETS = [
    "I prefer to be contacted by email, passwords are a pain.",
    "The password is something I need to change soon.",
    "Call me at +39 333 123 4567 tomorrow.",
    "The PIN is on the back of the letter.",
    "My IBAN is IT60X0542811101000000123456.",
    # What a chat about building software says of passwords and tokens.
    "I'm trying to implement the user password reset feature with email.",
    "Hmm, what if the password changes frequently? How do I update the config?",
    "Use the access token to access the endpoint, and when the access token expires, refresh.",
    "Set the secret key for token generation in the settings.",
    "password: ${{ secrets.DOCKER_PASSWORD }}",
    "# Get the access token\naccess_token = auth.get_access_token(code)",
    "const password = hash(raw, 10);",
]


def _everything_stored() -> str:
    """Every memory's content, context and search vector, and every event, as stored."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT string_agg(content || ' ' || context || ' ' "
            "|| coalesce(search_vector::text, ''), ' ') FROM memories_memory"
        )
        memories = cursor.fetchone()[0] or ""
        cursor.execute("SELECT string_agg(content, ' ') FROM memories_event")
        events = cursor.fetchone()[0] or ""
    return memories + " " + events


@pytest.mark.parametrize("sentence", list(SAID))
def test_a_secret_said_is_withheld_everywhere_and_audited(post_event, personas, sentence):
    secret, kind, told = SAID[sentence]
    answer = post_event(sentence, session="s1", speaker="user")
    post_event("Thanks, noted.", session="s1", speaker="assistant")
    event = Event.objects.get(pk=answer["event"]["id"])
    assert secret not in event.content
    assert "withheld]" in event.content
    assert secret not in _everything_stored()
    memories = Memory.objects.filter(client=personas.client)
    assert memories.exists() is told
    assert all(secret not in m.content for m in memories)
    (entry,) = AuditEntry.objects.filter(action="event.secrets_withheld")
    assert entry.object_id == str(event.pk)
    assert kind in entry.data["kinds"]
    assert entry.data["kept_sealed"] is False
    assert secret not in json.dumps(entry.data)


@pytest.mark.parametrize("sentence", NOT_SECRETS)
def test_what_is_not_a_secret_is_kept_as_said(sentence):
    assert withheld(sentence) == (sentence, ())


def test_an_encrypted_tenant_may_keep_the_event_sealed(
    api_client, django_capture_on_commit_callbacks
):
    tenant = tenant_create(slug="vault", name="Vault", encrypted=True)
    tenant.secrets_kept_sealed = True
    tenant.save(update_fields=["secrets_kept_sealed"])
    user = factories.UserFactory.create(username="vault-agent")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    _, key = factories.api_key_for(user, tenant)
    sentence = "My new password is Tr0ub4dor&3, I changed it yesterday."
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client.post(
            "/api/v1/events/",
            {"client": "ada", "content": sentence},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
    assert answer.status_code == 201
    event = Event.objects.get(pk=answer.json()["event"]["id"])
    assert event.content == sentence  # opened through the ORM: kept, sealed at rest
    assert all("Tr0ub4dor&3" not in m.content for m in Memory.objects.filter(tenant=tenant))
    assert "Tr0ub4dor&3" not in _everything_stored()  # the row holds ciphertext
    (entry,) = AuditEntry.objects.filter(tenant=tenant, action="event.secrets_withheld")
    assert entry.data == {"kinds": ["password"], "kept_sealed": True}


def test_account_numbers_stay_in_memory_but_go_out_masked(post_event, personas, settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    iban = "IT60X0542811101000000123456"
    with WebhookReceiver() as receiver:
        factories.WebhookEndpointFactory.create(tenant=personas.tenant, url=receiver.url)
        post_event(f"My IBAN is {iban}.")
        personas.tenant.account_numbers_shared = True
        personas.tenant.save(update_fields=["account_numbers_shared"])
        post_event(f"My other IBAN is {iban}.")
        masked, shared = receiver.bodies()
    assert any(iban in m.content for m in Memory.objects.filter(client=personas.client))
    assert [m["content"] for m in masked["data"]["memories"]] == ["My IBAN is [IBAN]."]
    assert iban in json.dumps(shared)
    assert WebhookDelivery.objects.count() == 2


def test_a_remote_embedding_provider_is_sent_account_numbers_masked(
    post_event, personas, remote_providers
):
    iban = "IT60X0542811101000000123456"
    post_event(f"My IBAN is {iban}.")
    sent = json.dumps([r["body"] for r in remote_providers.requests])
    assert "[IBAN]" in sent
    assert iban not in sent
    personas.tenant.account_numbers_shared = True
    personas.tenant.save(update_fields=["account_numbers_shared"])
    post_event(f"My savings IBAN is {iban}.")
    assert iban in json.dumps([r["body"] for r in remote_providers.requests])


@pytest.mark.parametrize(
    ("asked", "asker", "answer", "secret", "kind"),
    [
        ("My password is", "user", "Tr0ub4dor&3", "Tr0ub4dor&3", "password"),
        ("What's your PIN?", "assistant", "4471", "4471", "pin"),
        ("La mia password è", "user", "Gatto.2024", "Gatto.2024", "password"),
        ("Qual è il PIN del bancomat?", "assistant", "È 9173.", "9173", "pin"),
        ("¿Cuál es tu contraseña?", "assistant", "Perro1234", "Perro1234", "password"),
        ("¿Y el código de seguridad?", "assistant", "842", "842", "security_code"),
    ],
)
def test_a_secret_said_over_two_events_is_withheld(
    post_event, personas, asked, asker, answer, secret, kind
):
    """The question (or the sentence it ends) and the answer, posted one after the other:
    the answer is read with the turn stored before it."""
    post_event(asked, session="s1", speaker=asker)
    posted = post_event(answer, session="s1", speaker="user")
    event = Event.objects.get(pk=posted["event"]["id"])
    assert secret not in event.content
    assert "withheld]" in event.content
    assert secret not in _everything_stored()
    assert posted["memories"] == []  # the answer said nothing but the secret
    (entry,) = AuditEntry.objects.filter(action="event.secrets_withheld")
    assert entry.data == {"kinds": [kind], "kept_sealed": False}


def test_a_secret_said_over_two_events_of_one_batch_is_withheld(api_client, agent_key):
    events = [
        {"client": "emma", "session": "s1", "speaker": "assistant", "content": "What's your PIN?"},
        {"client": "emma", "session": "s1", "speaker": "user", "content": "four four seven one"},
        {"client": "emma", "session": "s2", "speaker": "user", "content": "Mi clave es"},
        {"client": "emma", "session": "s2", "speaker": "user", "content": "Sol-Luna9"},
    ]
    response = api_client.post(
        "/api/v1/events/batch/",
        {"events": events},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    )
    assert response.status_code == 201
    contents = [r["event"]["content"] for r in response.json()["results"]]
    assert contents == [
        "What's your PIN?",
        "[PIN withheld]",
        "Mi clave es",
        "[password withheld]",
    ]
    assert "four four seven one" not in _everything_stored()
    assert "Sol-Luna9" not in _everything_stored()


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("What's your PIN?", "I'd rather not say it in a chat."),
        ("Qual è il numero della carta?", "Quella che finisce con 1881."),
        ("¿Cuál es tu número de póliza?", "88-1234567"),
    ],
)
def test_an_answer_that_gives_no_secret_is_stored_as_said(post_event, asked, answer):
    post_event(asked, session="s1", speaker="assistant")
    posted = post_event(answer, session="s1", speaker="user")
    assert Event.objects.get(pk=posted["event"]["id"]).content == answer
    assert not AuditEntry.objects.filter(action="event.secrets_withheld").exists()


@pytest.mark.parametrize(
    "sentence",
    [
        "Il codice di accesso all home banking è Tr0ub4dor&3",
        "La mia password è Tr0ub4dor&3",
        "Mi contraseña del bróker es Tr0ub4dor&3",
        "My password for the portal is Tr0ub4dor&3",
    ],
)
def test_no_person_is_made_of_a_withheld_value(post_event, personas, sentence):
    posted = post_event(sentence)
    event = Event.objects.get(pk=posted["event"]["id"])
    assert event.entities == []
    assert not Memory.objects.filter(client=personas.client).exists()
    assert "Tr0ub4dor" not in _everything_stored()


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("password: Tr0ub4dor&3", []),
        ("Tr0ub4dor&3 is my new password, by the way.", []),
        ("My PIN is 4471. We are moving to Lugano in May.", ["We are moving to Lugano in May."]),
        (
            "Il mio PIN è 4471. A maggio ci trasferiamo a Lugano.",
            ["A maggio ci trasferiamo a Lugano."],
        ),
        ("Mi PIN es 4471. En mayo nos mudamos a Lugano.", ["En mayo nos mudamos a Lugano."]),
    ],
)
def test_a_sentence_that_carried_only_a_secret_leaves_no_memory(post_event, personas, said, told):
    post_event(said)
    memories = Memory.objects.filter(client=personas.client)
    assert sorted(m.content for m in memories) == told
