"""Migration 0010 rewrites every stored search vector to client-scoped lexemes, and 0012
weighs them (a memory's own words weigh A); both go back."""

import pytest
from django.db import connection

from memories.services.retrieval import memories_search
from tests.support import factories
from tests.support.migrations import latest, migrate

pytestmark = pytest.mark.django_db

BEFORE = ("memories", "0009_encryption_keys_sealed_fields")


def _stored(memory) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM memories_memory WHERE id = %s", [memory.pk])
        return cursor.fetchone()[0]


def test_old_vectors_become_what_the_write_path_writes_now(personas):
    memory = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email, not phone."
    )
    other = factories.MemoryFactory.create(client=personas.parent, content="Prefers the phone.")
    written = _stored(memory), _stored(other)

    migrate(BEFORE)
    old = _stored(memory)
    assert "'phone':4" in old
    assert f"'c{memory.client_id.hex}'" in old  # the one client lexeme of the old form

    migrate(latest())
    assert (_stored(memory), _stored(other)) == written
    [hit] = memories_search(client=personas.client, query="phone", record_access=False)
    assert hit.memory.pk == memory.pk
