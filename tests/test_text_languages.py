"""Full text in each memory's own language: detected at write time (the tenant's when the
text is too short to tell), indexed in it by every path that builds a search vector
(ingest, import, the switch to encryption, migration 0016), and a query read in every
language its client's memories use, plus the tenant's."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from memories.crypto import blind, keys
from memories.db import content_rewrite
from memories.languages import ALL_CONFIGS, CONFIGS, memory_language, text_config
from memories.models import Memory, TextSearchLanguage
from memories.services.client_data.erasure import client_erase
from memories.services.client_data.export import client_export
from memories.services.client_data.importing import client_import
from memories.services.retrieval import memories_search
from memories.services.tenancy.encryption import tenant_create, tenant_encrypt
from tests.support import factories
from tests.support.migrations import latest, migrate

pytestmark = pytest.mark.django_db

ITALIAN = "Il cliente vuole aumentare gli investimenti immobiliari a Milano."
SPANISH = "Quiere diversificar sus inversiones inmobiliarias en Madrid."
ENGLISH = "She wants to reduce the risk of her bond portfolio."
TEXT_ONLY = {"text": 1.0}  # no query vector: what is found, full text found


def _lexemes(memory) -> set[str]:
    """The memory's stored lexemes, without their client scope."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(split_part(l, ':', 2)) FROM memories_memory m, "
            "unnest(tsvector_to_array(m.search_vector)) AS l WHERE m.id = %s",
            [memory.pk],
        )
        return set(cursor.fetchone()[0] or [])


def _client_configs(client) -> dict[str, int]:
    """The client's memories per text search configuration (``LexemeCount``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT split_part(lexeme, ': ', 2), documents FROM memories_lexemecount "
            "WHERE lexeme LIKE %s",
            [f"{client.pk.hex[:12]}: %"],
        )
        return dict(cursor.fetchall())


def _italian_stem(word: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tsvector_to_array(to_tsvector('italian', %s))", [word])
        (stem,) = cursor.fetchone()[0]
        return stem


def _found(client, query: str) -> list[str]:
    hits = memories_search(client=client, query=query, weights=TEXT_ONLY, record_access=False)
    return [h.memory.content for h in hits]


@pytest.mark.parametrize(
    ("text", "tenant_config", "language"),
    [
        (ITALIAN, "english", "it"),
        (SPANISH, "english", "es"),
        (ENGLISH, "italian", "en"),
        ("Le client veut partir à la retraite au Portugal.", "english", "fr"),
        ("Der Kunde möchte früh in Rente gehen.", "english", "de"),
        ("Email.", "english", "en"),  # too short to tell: the tenant's
        ("Email.", "italian", "it"),
        ("Sì.", "english", "it"),  # short, but only Italian writes it
        ("Marco Rossi", "spanish", "es"),
        ("ETF", "simple", ""),
    ],
)
def test_a_memory_is_in_its_detected_language_else_its_tenants(text, tenant_config, language):
    assert memory_language(text, tenant_config) == language


def test_every_language_has_a_configuration_postgresql_knows():
    assert set(ALL_CONFIGS) == set(TextSearchLanguage.values)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT cfgname FROM pg_ts_config WHERE cfgname = ANY(%s)", [list(ALL_CONFIGS)]
        )
        assert {row[0] for row in cursor.fetchall()} == set(ALL_CONFIGS)
    assert [text_config(code) for code in CONFIGS] == list(ALL_CONFIGS[:-1])
    assert text_config("") == text_config("ru") == "simple"


def test_an_italian_memory_of_an_english_tenant_is_stemmed_in_italian_and_found(personas):
    memory = factories.MemoryFactory.create(client=personas.client, content=ITALIAN)
    english = factories.MemoryFactory.create(client=personas.client, content=ENGLISH)

    assert (memory.language, english.language) == ("it", "en")
    assert {"aument", "invest", "immobiliar"} <= _lexemes(memory)  # Italian stems
    assert "investimenti" not in _lexemes(memory)  # what English stemming stored
    assert _client_configs(personas.client) == {"italian": 1, "english": 1}
    assert _found(personas.client, "investimento immobiliare") == [ITALIAN]
    assert _found(personas.client, "bonds portfolios") == [ENGLISH]  # English still English


def test_a_spanish_memory_of_an_english_tenant_is_found_by_another_form(personas):
    memory = factories.MemoryFactory.create(client=personas.client, content=SPANISH)

    assert memory.language == "es"
    assert "inversion" in _lexemes(memory)  # English stems "inversiones" to 'invers'
    assert _found(personas.client, "¿Qué inversión inmobiliaria?") == [SPANISH]


def test_text_too_short_to_tell_is_stemmed_in_the_tenants_language(personas):
    memory = factories.MemoryFactory.create(client=personas.client, content="Investments.")

    assert memory.language == "en"
    assert _lexemes(memory) == {"invest"}
    assert _client_configs(personas.client) == {"english": 1}
    assert _found(personas.client, "investing") == ["Investments."]


def test_a_query_is_read_only_in_the_languages_the_clients_memories_use(personas):
    factories.MemoryFactory.create(client=personas.client, content=ITALIAN)
    other = personas.parent  # the same word, in an English memory
    factories.MemoryFactory.create(
        client=other, content="She put money in the Investimenti Globali fund last year."
    )

    assert _found(personas.client, "investimento") == [ITALIAN]
    assert _found(other, "investimento") == []  # 'investimento' ≠ 'investimenti' in English


def test_an_italian_memory_scores_in_an_english_tenant_as_in_an_italian_one(settings):
    """BM25 and coverage in the reading the memory answers: the English reading of an
    Italian question (words English never stems, with the weight of words nobody said)
    neither adds to nor dilutes the Italian one."""
    settings.MEMORYHUB = {"TEXT_SCALE": "query"}
    scores = []
    for slug, language in (("en-tenant", "english"), ("it-tenant", "italian")):
        tenant = factories.TenantFactory.create(slug=slug, language=language)
        client = factories.ClientFactory.create(tenant=tenant, external_ref="anna")
        factories.MemoryFactory.create(client=client, content=ITALIAN)
        factories.MemoryFactory.create(client=client, content="Preferisce essere chiamata.")
        [hit] = memories_search(
            client=client, query="investimenti a Milano", k=1, weights=TEXT_ONLY
        )
        scores.append(hit.scores["text"])
    assert scores[0] == scores[1]
    assert 0.5 < scores[0] <= 1


def test_import_detects_and_indexes_in_the_memorys_language(personas):
    memory = factories.MemoryFactory.create(client=personas.client, content=ITALIAN)
    document = client_export(client=personas.client)
    assert document["memories"][0]["language"] == "it"
    document["memories"][0]["language"] = "en"  # as an older memoryhub may have said
    client_erase(client=personas.client)

    restored = client_import(tenant=personas.tenant, data=document)

    again = Memory.objects.get(client=restored)
    assert (again.pk, again.language) == (memory.pk, "it")
    assert _lexemes(again) == _lexemes(memory)
    assert _client_configs(restored) == {"italian": 1}
    assert _found(restored, "investimento") == [ITALIAN]


def _blind_tokens(tenant, config: str, words: str) -> set[str]:
    key = keys.index_key(tenant.pk)
    return {blind.token(key, stem) for _, stem in blind.stems(words, config)}


def test_the_switch_to_encryption_indexes_each_memory_in_its_language():
    tenant = tenant_create(slug="plain", language="english")
    client = factories.ClientFactory.create(tenant=tenant, external_ref="anna")
    italian = factories.MemoryFactory.create(client=client, content=ITALIAN)
    english = factories.MemoryFactory.create(client=client, content=ENGLISH)

    tenant_encrypt(tenant=tenant)

    assert _lexemes(italian) == _blind_tokens(tenant, "italian", ITALIAN)
    assert _lexemes(english) == _blind_tokens(tenant, "english", ENGLISH)
    assert _client_configs(client) == {"italian": 1, "english": 1}
    assert _found(client, "investimento") == [ITALIAN]
    assert _found(client, "bonds") == [ENGLISH]


def test_an_encrypted_tenant_stems_each_memory_in_its_language():
    tenant = tenant_create(slug="vault", language="english", encrypted=True)
    client = factories.ClientFactory.create(tenant=tenant, external_ref="anna")
    italian = factories.MemoryFactory.create(client=client, content=ITALIAN)
    spanish = factories.MemoryFactory.create(client=client, content=SPANISH)

    assert (italian.language, spanish.language) == ("it", "es")
    assert _lexemes(spanish) == _blind_tokens(tenant, "spanish", SPANISH)
    assert _found(client, "investimento") == [ITALIAN]
    assert _found(client, "inversión") == [SPANISH]


def test_blind_stems_are_the_lexemes_postgresql_stores():
    words = "investimenti inversiones investissements Steuern beleggingen impostos the"
    with connection.cursor() as cursor:
        for config in ALL_CONFIGS:
            cursor.execute(
                "SELECT array_agg(l ORDER BY l) FROM "
                "unnest(tsvector_to_array(to_tsvector(%s::regconfig, %s))) AS l",
                [config, words],
            )
            stored = cursor.fetchone()[0]
            assert sorted({stem for _, stem in blind.stems(words, config)}) == stored, config


LATEST_BEFORE = ("memories", "0015_webhooks")


def test_the_migration_reindexes_existing_memories_in_their_language(personas):
    italian = factories.MemoryFactory.create(client=personas.client, content=ITALIAN)
    english = factories.MemoryFactory.create(client=personas.client, content=ENGLISH)
    written = _lexemes(italian), _lexemes(english)

    migrate(LATEST_BEFORE)  # its way back: every memory in its tenant's language
    assert "investimenti" in _lexemes(italian)
    # Today's search reads columns that schema lacks: what it would find is told by the
    # lexemes, and the Italian stem a search for "investimento" needs is not among them.
    assert _italian_stem("investimento") not in _lexemes(italian)
    with content_rewrite():
        Memory.objects.filter(pk=italian.pk).update(language="")  # as summaries were stored

    migrate(latest())

    italian.refresh_from_db()
    assert (italian.language, (_lexemes(italian), _lexemes(english))) == ("it", written)
    assert _client_configs(personas.client) == {"italian": 1, "english": 1}
    assert _found(personas.client, "investimento") == [ITALIAN]


def test_the_command_reindexes_a_tenant_in_batches(personas, capsys):
    for n in range(3):
        factories.MemoryFactory.create(client=personas.client, content=f"{ITALIAN} ({n})")
    with connection.cursor() as cursor:  # as an older process wrote them
        cursor.execute("SELECT set_config('memoryhub.allow_rewrite', 'on', true)")
        cursor.execute(
            "UPDATE memories_memory SET language = 'en', search_vector = memory_search_vector("
            "to_tsvector('english', content), client_id) WHERE client_id = %s",
            [personas.client.pk],
        )
        cursor.execute("SELECT set_config('memoryhub.allow_rewrite', 'off', true)")

    call_command("text_reindex", "--tenant", personas.tenant.slug, "--batch-size", "2")

    assert capsys.readouterr().out == "3 memories re-indexed in their own language\n"
    languages = Memory.objects.filter(client=personas.client).values_list("language", flat=True)
    assert set(languages) == {"it"}
    assert len(_found(personas.client, "investimento")) == 3


def _stored(memory) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM memories_memory WHERE id = %s", [memory.pk])
        return cursor.fetchone()[0]


@pytest.mark.parametrize("encrypted", [False, True], ids=["plaintext", "encrypted"])
def test_reindexing_writes_the_vectors_ingest_writes(encrypted):
    tenant = tenant_create(slug="t", language="english", encrypted=encrypted)
    client = factories.ClientFactory.create(tenant=tenant, external_ref="anna")
    memories = [
        factories.MemoryFactory.create(
            client=client,
            content=ITALIAN,
            speaker="Maria Rossi",
            context="Quali sono i suoi progetti per quest'anno?",
        ),
        factories.MemoryFactory.create(client=client, content=ENGLISH, title="Bonds"),
    ]
    written = [_stored(m) for m in memories]

    call_command("text_reindex", "--tenant", "t")

    assert [_stored(m) for m in memories] == written
    assert _client_configs(client) == {"italian": 1, "english": 1}
