"""Seal or not, decided from the database at write time (the tenant switch race).

A process that loaded a tenant before ``tenant_encrypt`` switched it on holds a stale
``Tenant`` whose ``encrypted`` is False; trusting it would store plaintext after the sweep
has passed. So a write that believes its tenant is plaintext asks the database, under a
shared advisory lock on the tenant's switch, and the switch takes that lock exclusively
to flip the flag:

- a writer inside a transaction keeps the shared lock until it commits, so the flip waits
  for it and the sweep that follows the flip sees (and seals) whatever it wrote; within
  that transaction the answer cannot change, so it is asked once per tenant;
- a writer that asks after the flip reads True, refreshes its stale instance and seals.

The flag only ever goes from False to True, so an instance that says True is trusted
without a query: encrypted tenants pay nothing; plaintext tenants one query per
transaction (per write outside one, where the sweep's final pass covers the instant
between the answer and the insert).
"""

from __future__ import annotations

from django.db import connection

from memories.models.tenancy import Tenant


def _lock_name(tenant_id) -> str:
    return f"memoryhub:tenant-switch:{tenant_id}"


def _table() -> str:
    return Tenant._meta.db_table


def switch_lock(tenant_id) -> None:
    """The exclusive side, for ``tenant_encrypt``: waits for every open writer that
    decided "plaintext" to commit. Must run inside the transaction that flips the flag."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [_lock_name(tenant_id)]
        )


def _transaction():
    """The outermost atomic block: one object per transaction, None outside one."""
    if connection.in_atomic_block and connection.atomic_blocks:
        return connection.atomic_blocks[0]
    return None


def encrypted_in_db(tenant_id) -> bool:
    outer = _transaction()
    known = connection.__dict__.get("_memoryhub_plain")
    if outer is not None and known is not None and known[0] is outer and tenant_id in known[1]:
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT encrypted FROM {_table()} "  # noqa: S608 - the model's own table name
            "WHERE id = %s AND pg_advisory_xact_lock_shared(hashtextextended(%s, 0)) IS NOT NULL",
            [tenant_id, _lock_name(tenant_id)],
        )
        row = cursor.fetchone()
    encrypted = bool(row and row[0])
    if not encrypted and outer is not None:
        if known is None or known[0] is not outer:
            known = (outer, set())
            connection.__dict__["_memoryhub_plain"] = known
        known[1].add(tenant_id)
    return encrypted


def encrypted_now(tenant) -> bool:
    """Whether a write for ``tenant`` must be sealed; a stale instance is refreshed."""
    if tenant.encrypted:
        return True
    if encrypted_in_db(tenant.pk):
        tenant.encrypted = True
        return True
    return False
