"""Database snapshots, to assert that a denied request changed nothing.

A snapshot holds, for every table Django manages, its row count and a digest of every
column of every row; two snapshots differ exactly when some row was added, removed or
changed. ``tenant=`` narrows it to the rows of one tenant (for "the other tenant's
request may write to its own tenant, never to this one").

    from tests.support.snapshot import unchanged

    with unchanged():
        response = client.post(url, data)
    assert response.status_code == 403

    before = take()
    ...
    assert take().changes(before) == []
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from django.apps import apps
from django.db import connection, models


def _tenant_path(model: type[models.Model]) -> str | None:
    """The lookup from ``model`` to its tenant, or None for models outside any tenant."""
    names = {f.name: f for f in model._meta.get_fields()}
    if model._meta.label == "memories.Tenant":
        return "pk"
    if "tenant" in names and names["tenant"].is_relation:
        return "tenant"
    for field in model._meta.get_fields():
        if field.many_to_one and field.concrete:
            # A concrete foreign key's target is a model class once apps are loaded.
            related = cast(type[models.Model], field.related_model)
            if any(f.name == "tenant" for f in related._meta.get_fields()):
                return f"{field.name}__tenant"
    return None


# Bookkeeping every request does, allowed or not: rate-limit counts.
NOT_DATA = {"memories.RateWindow"}


def _tables() -> list[type[models.Model]]:
    return [
        m
        for m in apps.get_models()
        if m._meta.managed
        and not m._meta.proxy
        and not m._meta.swapped
        and m._meta.label not in NOT_DATA
    ]


@dataclass(frozen=True)
class Snapshot:
    tables: dict[str, tuple[int, str]]  # model label → (rows, digest)

    def changes(self, earlier: Snapshot) -> list[str]:
        """What differs from ``earlier``, one line per table: "memories.Event: 3 → 4 rows"."""
        out = []
        for label in sorted(set(self.tables) | set(earlier.tables)):
            before, after = earlier.tables.get(label), self.tables.get(label)
            if before == after:
                continue
            rows = f"{before[0] if before else '-'} → {after[0] if after else '-'} rows"
            out.append(f"{label}: {rows}" + (", contents changed" if before and after else ""))
        return out


def take(*, tenant=None) -> Snapshot:
    """A snapshot of every table, or of the rows of ``tenant`` in the tables that have one."""
    if tenant is None:
        return _whole()
    tables = {}
    for model in _tables():
        label = model._meta.label
        path = _tenant_path(model)
        if path is None:
            continue
        rows = model._base_manager.filter(**{path: getattr(tenant, "pk", tenant)})
        columns = [f.attname for f in model._meta.concrete_fields]
        digest = hashlib.sha256()
        count = 0
        for row in rows.order_by("pk").values_list(*columns):
            digest.update(repr(row).encode())
            count += 1
        tables[label] = (count, digest.hexdigest())
    return Snapshot(tables)


def _whole() -> Snapshot:
    """Every table in one statement: its row count and the md5 of its rows' text in key
    order, whole rows (every column) as PostgreSQL writes them."""
    parts, labels = [], []
    for model in _tables():
        table = connection.ops.quote_name(model._meta.db_table)
        key = connection.ops.quote_name(model._meta.pk.column)
        parts.append(
            f"SELECT %s, count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t.{key}), '')) "
            f"FROM {table} t"
        )
        labels.append(model._meta.label)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), labels)
        return Snapshot({label: (rows, digest) for label, rows, digest in cursor.fetchall()})


@contextmanager
def unchanged(*, tenant=None) -> Iterator[None]:
    """Asserts that the block changed no row (of ``tenant``, when given)."""
    before = take(tenant=tenant)
    yield
    changes = take(tenant=tenant).changes(before)
    assert changes == [], f"the database changed: {changes}"
