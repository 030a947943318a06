"""What distributing memoryhub's tables by ``tenant_id`` with Citus would ask of the schema.

It reads the live schema from ``pg_catalog`` (what the migrations made, not what the models
say) and sorts every table of the current schema into one of three classes:

- **distributed**: the table has a ``tenant_id`` column (and is not a reference table).
  Its shards follow the tenant, and Citus requires that every primary key, unique
  constraint and unique index holds ``tenant_id``, that ``tenant_id`` is never NULL, and
  that a foreign key to another distributed table pairs ``tenant_id`` with ``tenant_id``.
  A foreign key to a reference table is fine; one to any other table is not.
- **reference**: small, shared, read by every tenant's queries, and written rarely; Citus
  keeps a whole copy on every node. The list is ``REFERENCE`` below, each with its reason.
  A reference table may point only at reference tables.
- **decide**: neither of the above. When it points at a distributed table, its rows are a
  tenant's rows without saying so: the advice is to add ``tenant_id`` and distribute it,
  and what that would then ask of it is listed the same way. Otherwise it holds no
  tenant's rows: it can stay a local table on the coordinator, or become a reference table.

Every check is on plain columns: a unique index whose ``tenant_id`` appears only inside an
expression does not count. Row triggers are listed too, since Citus runs them on the shards
only with ``citus.enable_unsafe_triggers`` on.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from django.core.management.base import BaseCommand
from django.db import connections

TENANT = "tenant_id"
DISTRIBUTED, REFERENCE_CLASS, DECIDE = "distributed", "reference", "decide"

REFERENCE = {
    "memories_tenant": (
        "the tenants themselves, one small row each, joined by every request (the API key's "
        "statement) and by most writes through their foreign keys. Distributed by its own "
        "id it would spread one row per tenant over the shards, lose the global unique slug "
        "(a unique index must hold the distribution column), and send every lookup by slug "
        "or list of tenants to all shards."
    ),
    "memories_embeddingspace": "one row per embedding model, read by every search and write",
    "auth_user": (
        "people log in before a tenant is known, and one person may belong to several "
        "tenants (memberships)"
    ),
    "auth_group": "Django's groups: global, a handful of rows",
    "auth_permission": "Django's permission catalogue: global, fixed by the code",
    "auth_group_permissions": "ties two reference tables",
    "auth_user_groups": "ties two reference tables",
    "auth_user_user_permissions": "ties two reference tables",
    "django_content_type": "Django's model catalogue: global, fixed by the code",
}

NOTES = {
    "memories_lexemecount": (
        "a tenant's rows that no foreign key shows: the key is '<12 hex of the client id>:"
        "<lexeme>'. Add tenant_id to the key and distribute it."
    ),
}

SCHEMA_SQL = """
SELECT c.oid, c.relname, c.relpersistence = 'u'
FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
  AND NOT c.relispartition
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                  AND d.objid = c.oid AND d.deptype = 'e')
ORDER BY c.relname
"""
COLUMNS_SQL = """
SELECT attrelid, attnum, attname, attnotnull FROM pg_attribute
WHERE attrelid = ANY(%s) AND attnum > 0 AND NOT attisdropped
"""
UNIQUE_SQL = """
SELECT i.indrelid, ic.relname, i.indkey::int2[], i.indpred IS NOT NULL,
       coalesce(con.contype, 'i')
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid
     AND con.contype IN ('p', 'u')
WHERE i.indrelid = ANY(%s) AND i.indisunique
ORDER BY ic.relname
"""
FOREIGN_KEYS_SQL = """
SELECT conrelid, conname, conkey, confrelid::regclass::text, confrelid, confkey
FROM pg_constraint WHERE contype = 'f' AND conrelid = ANY(%s) ORDER BY conname
"""
TRIGGERS_SQL = """
SELECT tgrelid, tgname FROM pg_trigger WHERE tgrelid = ANY(%s) AND NOT tgisinternal
ORDER BY tgname
"""
UNIQUE_KINDS = {"p": "primary key", "u": "unique constraint", "i": "unique index"}


@dataclass
class Unique:
    name: str
    kind: str
    columns: list[str]  # "(expression)" for an expression's place
    partial: bool


@dataclass
class ForeignKey:
    name: str
    columns: list[str]
    target: str
    target_columns: list[str]


@dataclass
class Table:
    name: str
    columns: dict[str, bool]  # name -> NOT NULL
    unlogged: bool
    unique: list[Unique] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)


@dataclass
class Change:
    kind: str  # tenant_id, nullable, unique, foreign key, trigger
    object: str
    detail: str


@dataclass
class Plan:
    table: str
    cls: str
    reason: str
    changes: list[Change]


def schema_read(using: str = "default") -> dict[str, Table]:
    """Every table of the current schema, as the catalogue has it."""
    with connections[using].cursor() as cursor:
        cursor.execute(SCHEMA_SQL)
        rows = cursor.fetchall()
        oids = [oid for oid, _, _ in rows]
        names = {oid: name for oid, name, _ in rows}
        tables = {oid: Table(name, {}, unlogged) for oid, name, unlogged in rows}
        attnames: dict[int, dict[int, str]] = {oid: {} for oid in oids}
        cursor.execute(COLUMNS_SQL, [oids])
        for oid, attnum, attname, notnull in cursor.fetchall():
            attnames[oid][attnum] = attname
            tables[oid].columns[attname] = notnull
        cursor.execute(UNIQUE_SQL, [oids])
        for oid, index, keys, partial, kind in cursor.fetchall():
            columns = [attnames[oid].get(key, "(expression)") for key in keys]
            tables[oid].unique.append(Unique(index, UNIQUE_KINDS[kind], columns, partial))
        cursor.execute(FOREIGN_KEYS_SQL, [oids])
        for oid, name, keys, target, target_oid, target_keys in cursor.fetchall():
            target_names = attnames.get(target_oid, {})
            tables[oid].foreign_keys.append(
                ForeignKey(
                    name,
                    [attnames[oid][key] for key in keys],
                    names.get(target_oid, target),
                    [target_names.get(key, str(key)) for key in target_keys],
                )
            )
        cursor.execute(TRIGGERS_SQL, [oids])
        for oid, name in cursor.fetchall():
            tables[oid].triggers.append(name)
    return {table.name: table for table in tables.values()}


def classify(table: Table) -> str:
    if table.name in REFERENCE:
        return REFERENCE_CLASS
    return DISTRIBUTED if TENANT in table.columns else DECIDE


def _columns(names: list[str]) -> str:
    return ", ".join(names)


def _as_distributed(table: Table, classes: dict[str, str]) -> list[Change]:
    """What distributing ``table`` by tenant_id would ask of it, as it stands."""
    changes = []
    if TENANT not in table.columns:
        changes.append(Change("tenant_id", TENANT, "add the column, NOT NULL"))
    elif not table.columns[TENANT]:
        changes.append(
            Change("nullable", TENANT, "allows NULL: every row needs a tenant (or another home)")
        )
    for unique in table.unique:
        if TENANT not in unique.columns:
            partial = ", partial" if unique.partial else ""
            changes.append(
                Change(
                    "unique",
                    unique.name,
                    f"{unique.kind} ({_columns(unique.columns)}{partial}) lacks tenant_id",
                )
            )
    for fk in table.foreign_keys:
        target = f"{fk.target} ({_columns(fk.target_columns)})"
        target_class = classes.get(fk.target, DECIDE)
        if target_class == DISTRIBUTED:
            if (TENANT, TENANT) not in zip(fk.columns, fk.target_columns, strict=True):
                changes.append(
                    Change(
                        "foreign key",
                        fk.name,
                        f"({_columns(fk.columns)}) -> {target}: pair tenant_id with tenant_id",
                    )
                )
        elif target_class != REFERENCE_CLASS:
            changes.append(
                Change(
                    "foreign key",
                    fk.name,
                    f"({_columns(fk.columns)}) -> {target}: "
                    "points at a table neither distributed nor reference",
                )
            )
    for trigger in table.triggers:
        changes.append(
            Change(
                "trigger", trigger, "runs on the shards only with citus.enable_unsafe_triggers on"
            )
        )
    return changes


def plan(tables: dict[str, Table]) -> list[Plan]:
    classes = {name: classify(table) for name, table in tables.items()}
    plans = []
    for name, table in tables.items():
        cls = classes[name]
        parents = sorted(
            {fk.target for fk in table.foreign_keys if classes.get(fk.target) == DISTRIBUTED}
        )
        if cls == DISTRIBUTED:
            reason = "has tenant_id"
            changes = _as_distributed(table, classes)
        elif cls == REFERENCE_CLASS:
            reason = REFERENCE[name]
            changes = [
                Change(
                    "foreign key",
                    fk.name,
                    f"({_columns(fk.columns)}) -> {fk.target}: "
                    "a reference table may point only at reference tables",
                )
                for fk in table.foreign_keys
                if classes.get(fk.target) != REFERENCE_CLASS
            ]
        elif parents or name in NOTES:
            reason = NOTES.get(name) or (
                f"no tenant_id, but its rows hang off {', '.join(parents)}: "
                "add tenant_id and distribute it"
            )
            changes = _as_distributed(table, classes)
        else:
            reason = (
                "no tenant_id and no foreign key to a tenant's table: a local table on the "
                "coordinator, or a reference table"
            )
            changes = []
        plans.append(Plan(name, cls, reason, changes))
    order = {DISTRIBUTED: 0, REFERENCE_CLASS: 1, DECIDE: 2}
    return sorted(plans, key=lambda p: (order[p.cls], p.table))


def summary(plans: list[Plan]) -> dict[str, int]:
    counts = {f"{cls} tables": 0 for cls in (DISTRIBUTED, REFERENCE_CLASS, DECIDE)}
    for item in plans:
        counts[f"{item.cls} tables"] += 1
        for change in item.changes:
            counts[f"{change.kind} changes"] = counts.get(f"{change.kind} changes", 0) + 1
    return counts


HEADINGS = {
    DISTRIBUTED: "Distributed by tenant_id",
    REFERENCE_CLASS: "Reference tables (a copy on every node)",
    DECIDE: "To decide",
}


def markdown(plans: list[Plan]) -> str:
    lines = ["# Citus by tenant_id: what would have to change", ""]
    lines += [f"- {key}: {value}" for key, value in summary(plans).items()]
    for cls, heading in HEADINGS.items():
        lines += ["", f"## {heading}"]
        for item in (p for p in plans if p.cls == cls):
            lines += ["", f"### {item.table}", "", item.reason]
            if item.changes:
                lines.append("")
            lines += [f"- {c.kind}: `{c.object}`: {c.detail}" for c in item.changes]
    return "\n".join(lines) + "\n"


class Command(BaseCommand):
    help = (
        "Read the live schema and list, table by table, what distributing it by tenant_id "
        "with Citus would have to change (markdown, or --json)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="JSON instead of markdown")
        parser.add_argument("--database", default="default", help="database alias")

    def handle(self, *args, **options):
        plans = plan(schema_read(options["database"]))
        if options["json"]:
            data = {
                "summary": summary(plans),
                "tables": [
                    {
                        "table": p.table,
                        "class": p.cls,
                        "reason": p.reason,
                        "changes": [asdict(c) for c in p.changes],
                    }
                    for p in plans
                ],
            }
            self.stdout.write(json.dumps(data, indent=2))
        else:
            self.stdout.write(markdown(plans), ending="")
