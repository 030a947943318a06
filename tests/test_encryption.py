"""Encrypted tenants: nothing the client said is stored in clear, and everything still
works (dedup, search, profiles, jobs, API), key rotation included."""

from __future__ import annotations

import base64

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories.crypto import keys
from memories.crypto.providers import KeyUnavailable
from memories.models import DataKey, Event, Memory, Role
from memories.services.jobs.runner import jobs_run_all
from memories.services.retrieval import memories_search
from memories.services.tenancy.encryption import master_key_rotate, tenant_create, tenant_encrypt
from profiles.services.profile import profile_refresh
from tests.support import factories
from tests.support.encryption import CORPUS, QUERIES, dump_database, ingest_corpus, leaked

pytestmark = pytest.mark.django_db

NEW_MASTER = base64.b64encode(b"n" * 32).decode()


@pytest.fixture
def vault():
    return tenant_create(slug="vault", name="Vault", encrypted=True)


@pytest.fixture
def plain():
    return tenant_create(slug="plain", name="Plain")


def _supervisor(tenant, name):
    user = factories.UserFactory.create(username=name)
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    return user


def _raw(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def test_a_dump_holds_none_of_the_sentences_nor_their_words(vault, plain):
    baseline = dump_database()
    ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault)
    client = vault.clients.get()
    profile_refresh(client=client)
    jobs_run_all(tenant_id=vault.pk)  # summaries, consolidation, profiles: all sealed too

    assert leaked(dump_database(), CORPUS, baseline=baseline) == {"sentences": [], "words": []}

    # The same corpus in a plaintext tenant shows up: the check has teeth.
    ingest_corpus(user=_supervisor(plain, "sp"), tenant=plain)
    found = leaked(dump_database(), CORPUS, baseline=baseline)
    assert len(found["sentences"]) == len(CORPUS)
    assert {"violin", "lighthouse", "shellfish"} <= set(found["words"])


def test_stored_text_is_sealed_and_read_back_in_clear(vault):
    results = ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault)
    memory = results[1].outcomes[0].memory
    (stored,) = _raw("SELECT content, content_hash FROM memories_memory WHERE id = %s", [memory.pk])
    assert stored[0].startswith("mh1:")
    assert Memory.objects.get(pk=memory.pk).content == memory.content
    assert "Beatrix" in Memory.objects.get(pk=memory.pk).content
    assert Event.objects.get(external_id="e-1").metadata == {"note": CORPUS[1]}
    assert Memory.objects.filter(pk=memory.pk).values_list("content", flat=True).get() == (
        memory.content
    )
    # One data key per client, wrapped; the tenant's index key beside it.
    assert DataKey.objects.filter(tenant=vault).count() == 2


def test_exact_restatement_is_deduplicated_through_the_keyed_hash(vault):
    user = _supervisor(vault, "sv")
    ingest_corpus(user=user, tenant=vault, corpus=CORPUS[:3])
    again = ingest_corpus(user=user, tenant=vault, corpus=CORPUS[:1], session="s-2")
    # external ids repeat per client: a replay; a new id is a restatement
    assert again[0].created is False
    from memories.services.write.ingest import EventInput, event_ingest

    result = event_ingest(
        user=user,
        tenant=vault,
        item=EventInput(client="ana-7", content=CORPUS[0], external_id="again-0"),
    )
    assert [o.action for o in result.outcomes] == ["deduplicated"]


def test_search_gives_the_plaintext_tenants_top_results(vault, plain):
    ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault)
    ingest_corpus(user=_supervisor(plain, "sp"), tenant=plain)
    sealed_client, clear_client = vault.clients.get(), plain.clients.get()
    for query in QUERIES:
        sealed = memories_search(client=sealed_client, query=query, k=3, record_access=False)
        clear = memories_search(client=clear_client, query=query, k=3, record_access=False)
        assert [h.memory.content for h in sealed] == [h.memory.content for h in clear], query
        assert [h.scores["text"] for h in sealed] == [h.scores["text"] for h in clear], query


def test_text_search_alone_matches_through_the_blind_index(vault):
    ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault)
    client = vault.clients.get()
    hits = memories_search(
        client=client, query="conservatoires", k=1, weights={"text": 1.0}, record_access=False
    )
    assert [h.memory.content for h in hits] == [CORPUS[1]]  # stemmed: conservatoire(s)


def test_rotation_rewraps_every_key_and_everything_stays_readable(vault, settings):
    ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault)
    client = vault.clients.get()
    before = sorted(Memory.objects.filter(client=client).values_list("content", flat=True))
    old = settings.MEMORYHUB_MASTER_KEY
    old_versions = set(DataKey.objects.values_list("master_version", flat=True))

    settings.MEMORYHUB_MASTER_KEY, settings.MEMORYHUB_MASTER_KEYS_OLD = NEW_MASTER, old
    keys.clear_cache()
    # Mid-rotation: the old wrapping still opens (reads go on).
    assert memories_search(client=client, query="violin", k=1, record_access=False)
    assert master_key_rotate() == 2

    settings.MEMORYHUB_MASTER_KEYS_OLD = ""  # the old master key is gone for good
    keys.clear_cache()
    assert not set(DataKey.objects.values_list("master_version", flat=True)) & old_versions
    after = sorted(Memory.objects.filter(client=client).values_list("content", flat=True))
    assert after == before
    hits = memories_search(client=client, query="violin", k=1, record_access=False)
    assert hits[0].memory.content == CORPUS[1]


def test_a_key_wrapped_by_an_unknown_master_key_fails_loudly(vault, settings):
    ingest_corpus(user=_supervisor(vault, "sv"), tenant=vault, corpus=CORPUS[:1])
    settings.MEMORYHUB_MASTER_KEY = NEW_MASTER
    keys.clear_cache()
    with pytest.raises(KeyUnavailable, match="not configured"):
        list(Memory.objects.filter(tenant=vault).values_list("content", flat=True))


def test_an_encrypted_tenant_needs_a_master_key(settings):
    settings.MEMORYHUB_MASTER_KEY = ""
    with pytest.raises(KeyUnavailable, match="MEMORYHUB_MASTER_KEY is not set"):
        tenant_create(slug="nokey", encrypted=True)
    with pytest.raises(CommandError, match="MEMORYHUB_MASTER_KEY is not set"):
        call_command("create_tenant", "nokey", "--encrypted")
    settings.MEMORYHUB_MASTER_KEY = "not base64 at all"
    with pytest.raises(CommandError, match="32 random bytes"):
        call_command("create_tenant", "nokey", "--encrypted")


def test_create_tenant_command(capsys):
    call_command("create_tenant", "sealed", "--encrypted", "--language", "italian")
    assert capsys.readouterr().out == "created tenant sealed (encrypted, italian)\n"
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_tenant", "sealed")


def test_tenant_encrypt_seals_existing_data_in_place_and_resumes(plain):
    user = _supervisor(plain, "sp")
    ingest_corpus(user=user, tenant=plain)
    client = plain.clients.get()
    profile_refresh(client=client)
    before_hits = [
        h.memory.content
        for h in memories_search(client=client, query="violin", k=2, record_access=False)
    ]
    baseline_contents = sorted(Memory.objects.values_list("content", flat=True))

    first = tenant_encrypt(tenant=plain, batch_size=5, progress=None)
    assert first["memories.event"] == len(CORPUS)
    assert tenant_encrypt(tenant=plain) == {}  # resumed: nothing left to seal

    assert _raw("SELECT count(*) FROM memories_memory WHERE content NOT LIKE 'mh1:%%'") == [(0,)]
    assert _raw("SELECT count(*) FROM memories_event WHERE content NOT LIKE 'mh1:%%'") == [(0,)]
    assert _raw("SELECT count(*) FROM profiles_profile WHERE NOT static ? 'mh1'") == [(0,)]
    assert sorted(Memory.objects.values_list("content", flat=True)) == baseline_contents
    client.tenant.refresh_from_db()
    after_hits = [
        h.memory.content
        for h in memories_search(client=client, query="violin", k=2, record_access=False)
    ]
    assert after_hits == before_hits


def test_tenant_encrypt_command(plain, capsys):
    ingest_corpus(user=_supervisor(plain, "sp"), tenant=plain, corpus=CORPUS[:2])
    call_command("tenant_encrypt", "plain", "--no-rewrite")  # inside the test's transaction
    out = capsys.readouterr().out
    assert out.startswith("tenant plain is encrypted; sealed now: ")
    assert out.endswith(
        "tables not rewritten (--no-rewrite): their files still hold the old plaintext rows\n"
    )
    with pytest.raises(CommandError, match="no tenant"):
        call_command("tenant_encrypt", "missing")


def test_vector_search_off_stores_no_vectors(settings):
    tenant = tenant_create(slug="novec", encrypted=True, vector_search_enabled=False)
    ingest_corpus(user=_supervisor(tenant, "sn"), tenant=tenant, corpus=CORPUS[:4])
    assert _raw("SELECT count(*) FROM memories_memoryembedding") == [(0,)]
    assert not Memory.objects.filter(tenant=tenant, needs_embedding=True).exists()
    client = tenant.clients.get()
    hits = memories_search(client=client, query="violin", k=1, record_access=False)
    assert hits[0].memory.content == CORPUS[1]
    assert hits[0].scores["semantic"] == 0.0
