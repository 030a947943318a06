"""manage.py citus_plan, run on the test database that the migrations made."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

pytestmark = pytest.mark.django_db


def _plan_json() -> dict[str, dict]:
    out = StringIO()
    call_command("citus_plan", "--json", stdout=out)
    return {table["table"]: table for table in json.loads(out.getvalue())["tables"]}


def _changes(table: dict) -> dict[str, tuple[str, str]]:
    return {c["object"]: (c["kind"], c["detail"]) for c in table["changes"]}


def test_tables_with_tenant_id_are_distributed_and_their_keys_lacking_it_are_listed():
    plan = _plan_json()
    memory = plan["memories_memory"]
    assert memory["class"] == "distributed"
    changes = _changes(memory)
    assert changes["memories_memory_pkey"] == ("unique", "primary key (id) lacks tenant_id")
    assert changes["memories_memory_canonical_id_f1a6ce9e_fk_memories_memory_id"] == (
        "foreign key",
        "(canonical_id) -> memories_memory (id): pair tenant_id with tenant_id",
    )
    assert changes["memories_memory_add_only"][0] == "trigger"
    # A foreign key to the tenants (a reference table) is fine as it is.
    assert not [c for c in memory["changes"] if "memories_tenant" in c["detail"]]


def test_a_global_unique_key_is_reported_and_one_holding_tenant_id_is_not():
    plan = _plan_json()
    assert _changes(plan["memories_apikey"])["memories_apikey_prefix_key"] == (
        "unique",
        "unique constraint (prefix) lacks tenant_id",
    )
    membership = _changes(plan["memories_membership"])
    assert set(membership) == {"memories_membership_pkey"}  # (tenant_id, user_id) holds it


def test_a_nullable_tenant_id_is_reported():
    plan = _plan_json()
    assert _changes(plan["memories_auditentry"])["tenant_id"][0] == "nullable"
    assert "tenant_id" not in _changes(plan["memories_event"])


def test_tables_without_tenant_id_are_not_distributed():
    plan = _plan_json()
    assert plan["memories_tenant"]["class"] == "reference"
    assert plan["memories_tenant"]["changes"] == []
    assert plan["auth_user"]["class"] == "reference"
    assert plan["django_session"] == {
        "table": "django_session",
        "class": "decide",
        "reason": "no tenant_id and no foreign key to a tenant's table: a local table on the "
        "coordinator, or a reference table",
        "changes": [],
    }
    evidence = plan["memories_evidence"]
    assert evidence["class"] == "decide"
    assert "memories_event, memories_memory" in evidence["reason"]
    changes = _changes(evidence)
    assert changes["tenant_id"] == ("tenant_id", "add the column, NOT NULL")
    assert changes["evidence_unique_pair"] == (
        "unique",
        "unique constraint (memory_id, event_id) lacks tenant_id",
    )
    assert changes["memories_evidence_memory_id_e401df97_fk_memories_memory_id"][0] == (
        "foreign key"
    )
    assert not [t for t in plan.values() if t["class"] == "distributed" and "tenant" in t["table"]]


def test_markdown_and_json_say_the_same():
    out = StringIO()
    call_command("citus_plan", stdout=out)
    headings = {
        "Distributed by tenant_id": "distributed",
        "Reference tables (a copy on every node)": "reference",
        "To decide": "decide",
    }
    seen: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    cls = table = ""
    for line in out.getvalue().splitlines():
        if line.startswith("## "):
            cls = headings[line[3:]]
        elif line.startswith("### "):
            table = line[4:]
            seen[table] = (cls, [])
        elif table and (change := re.match(r"- ([a-z_ ]+): `([^`]+)`: ", line)):
            seen[table][1].append((change[1], change[2]))
    expected = {
        name: (t["class"], [(c["kind"], c["object"]) for c in t["changes"]])
        for name, t in _plan_json().items()
    }
    assert seen == expected
    assert len(seen) > 30  # every table of the project's and Django's apps


def test_the_checks_read_any_table_not_a_list_of_known_ones():
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE citus_probe (id bigserial PRIMARY KEY, "
            "tenant_id uuid NOT NULL REFERENCES memories_tenant (id), "
            "memory_id uuid REFERENCES memories_memory (id), "
            "log_id integer REFERENCES django_admin_log (id), code text)"
        )
        cursor.execute("CREATE UNIQUE INDEX citus_probe_code ON citus_probe (code)")
        cursor.execute("CREATE UNIQUE INDEX citus_probe_fine ON citus_probe (tenant_id, code)")
        cursor.execute(
            "CREATE UNIQUE INDEX citus_probe_cast ON citus_probe ((tenant_id::text), code)"
        )
    probe = _plan_json()["citus_probe"]
    assert probe["class"] == "distributed"
    assert _changes(probe) == {
        "citus_probe_pkey": ("unique", "primary key (id) lacks tenant_id"),
        "citus_probe_code": ("unique", "unique index (code) lacks tenant_id"),
        "citus_probe_cast": ("unique", "unique index ((expression), code) lacks tenant_id"),
        "citus_probe_memory_id_fkey": (
            "foreign key",
            "(memory_id) -> memories_memory (id): pair tenant_id with tenant_id",
        ),
        "citus_probe_log_id_fkey": (
            "foreign key",
            "(log_id) -> django_admin_log (id): points at a table neither distributed nor "
            "reference",
        ),
    }

    # Paired with tenant_id, the same foreign key asks for nothing.
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE citus_probe DROP CONSTRAINT citus_probe_memory_id_fkey")
        cursor.execute("CREATE UNIQUE INDEX memory_by_tenant ON memories_memory (tenant_id, id)")
        cursor.execute(
            "ALTER TABLE citus_probe ADD CONSTRAINT citus_probe_memory FOREIGN KEY "
            "(tenant_id, memory_id) REFERENCES memories_memory (tenant_id, id)"
        )
    plan = _plan_json()
    assert "citus_probe_memory" not in _changes(plan["citus_probe"])
    assert "memory_by_tenant" not in _changes(plan["memories_memory"])


def test_a_reference_table_pointing_at_a_tenants_table_is_reported():
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE auth_user ADD COLUMN home_client_id uuid")
        cursor.execute(
            "ALTER TABLE auth_user ADD CONSTRAINT user_home_client FOREIGN KEY "
            "(home_client_id) REFERENCES memories_client (id)"
        )
    assert _changes(_plan_json()["auth_user"]) == {
        "user_home_client": (
            "foreign key",
            "(home_client_id) -> memories_client: a reference table may point only at "
            "reference tables",
        )
    }
