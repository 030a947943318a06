"""After ``tenant_encrypt``, the files of the tables that held the tenant's words hold
none of them: sealing leaves the old row versions behind (dead rows, index entries, the
statistics' samples) until the command's rewrite. Read from the embedded server's data
folder, after a checkpoint, before and after."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from memories.models import Role
from profiles.services.profile import profile_refresh
from tests.support import factories
from tests.support.encryption import CORPUS, ingest_corpus

pytestmark = pytest.mark.django_db(transaction=True)

WORD = b"thaddeus"  # "My husband Thaddeus is allergic to shellfish."
TABLES = [
    "memories_event",
    "memories_memory",
    "memories_lexemecount",
    "profiles_profile",
    "curation_reviewitem",
]


def _files(table: str) -> dict[str, Path]:
    """The table's main data file, its TOAST table's and every index's, by relation."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        data = Path(cursor.fetchone()[0])
        cursor.execute(
            "SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_class c "
            "WHERE c.oid = %s::regclass OR c.oid = (SELECT reltoastrelid FROM pg_class "
            "WHERE oid = %s::regclass) OR c.oid IN (SELECT indexrelid FROM pg_index "
            "WHERE indrelid IN (%s::regclass, (SELECT reltoastrelid FROM pg_class "
            "WHERE oid = %s::regclass)))",
            [table, table, table, table],
        )
        return {name: data / path for name, path in cursor.fetchall()}


def _holding_the_word(paths: dict[str, Path]) -> set[str]:
    return {
        name for name, path in paths.items() if path.exists() and WORD in path.read_bytes().lower()
    }


def _checkpoint() -> None:
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")


def test_tenant_encrypt_leaves_no_word_of_the_tenant_in_the_tables_files():
    tenant = factories.TenantFactory.create(slug="plain", encrypted=False)
    user = factories.UserFactory.create(username="sp")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    # Few statements: a row under 2 KB is stored as it is, not compressed into TOAST, so
    # its words can be read in the file (compressed ones are there too, just not greppable)
    ingest_corpus(user=user, tenant=tenant, corpus=CORPUS[:5])
    profile_refresh(client=tenant.clients.get())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_event")  # as autovacuum would, some time before
    _checkpoint()

    before = {table: _files(table) for table in TABLES}
    before["pg_statistic"] = _files("pg_catalog.pg_statistic")
    holding = {table: _holding_the_word(paths) for table, paths in before.items()}
    for table in ("memories_event", "memories_memory", "profiles_profile", "pg_statistic"):
        assert table in holding[table], f"{table} did not hold the word to begin with"
    assert "memory_search_vector_gin" in holding["memories_memory"]
    assert holding["memories_lexemecount"]

    out = io.StringIO()
    call_command("tenant_encrypt", "plain", stdout=out, stderr=io.StringIO())
    _checkpoint()

    after = {table: _files(table) for table in TABLES}
    after["pg_statistic"] = _files("pg_catalog.pg_statistic")
    assert {table: _holding_the_word(paths) for table, paths in after.items()} == {
        table: set() for table in after
    }
    # the old files are gone (or emptied, until the server unlinks them)
    for table, paths in before.items():
        for name, path in paths.items():
            if path != after[table].get(name):
                assert not path.exists() or path.stat().st_size == 0, (table, name)
    assert out.getvalue().endswith("tables rewritten: no old row of them is left in their files\n")
