"""Data keys (one per client) and index keys (one per tenant), unwrapped in memory only.

Unwrapped keys are cached by key id for the life of the process: an id names one key
forever (a UUID, never reused), so the cache cannot go stale; erasure deletes the row
and evicts the id here. Which key a client or tenant uses is cached only once the row is
known to be committed (``on_commit``): a key created in a transaction that rolls back
must never be used again.
"""

from __future__ import annotations

import os
import threading
import uuid

from django.db import connection, transaction

from memories.crypto.providers import get_provider
from memories.models.keys import DataKey

_lock = threading.Lock()
_plain: dict[uuid.UUID, bytes] = {}  # key id → key
_client_key: dict = {}  # client id → key id (committed rows only)
_index_key: dict = {}  # tenant id → key id (committed rows only)


def _remember(mapping: dict, owner, key_id) -> None:
    def store():
        with _lock:
            mapping[owner] = key_id

    if connection.in_atomic_block:
        transaction.on_commit(store)
    else:
        store()


def _unwrap(row) -> bytes:
    key = _plain.get(row.pk)
    if key is None:
        key = get_provider().unwrap(row.wrapped, row.master_version)
        with _lock:
            _plain[row.pk] = key
    return key


def key_by_id(key_id: uuid.UUID) -> bytes | None:
    """The key with this id, or None if there is no such key (erased, or never was)."""
    key = _plain.get(key_id)
    if key is not None:
        return key
    row = DataKey.objects.filter(pk=key_id).first()
    return _unwrap(row) if row is not None else None


def _get_or_create(*, purpose: str, tenant_id, client_id):
    lookup = {"purpose": purpose, "tenant_id": tenant_id}
    lookup |= {"client_id": client_id} if purpose == "data" else {}
    row = DataKey.objects.filter(**lookup).first()
    if row is None:
        wrapped, version = get_provider().wrap(os.urandom(32))
        # ON CONFLICT DO NOTHING: a concurrent writer's key wins and is read back.
        DataKey.objects.bulk_create(
            [DataKey(wrapped=wrapped, master_version=version, **lookup)],
            ignore_conflicts=True,
        )
        row = DataKey.objects.get(**lookup)
    return row


def client_key(client_id, tenant_id) -> tuple[uuid.UUID, bytes]:
    """(key id, key) sealing ``client_id``'s texts, created on first use."""
    key_id = _client_key.get(client_id)
    if key_id is not None and key_id in _plain:
        return key_id, _plain[key_id]
    row = _get_or_create(purpose="data", tenant_id=tenant_id, client_id=client_id)
    _remember(_client_key, client_id, row.pk)
    return row.pk, _unwrap(row)


def index_key(tenant_id) -> bytes:
    """The tenant's blind-index key, created on first use."""
    key_id = _index_key.get(tenant_id)
    if key_id is not None and key_id in _plain:
        return _plain[key_id]
    row = _get_or_create(purpose="index", tenant_id=tenant_id, client_id=None)
    _remember(_index_key, tenant_id, row.pk)
    return _unwrap(row)


def forget_client(client_id) -> None:
    """Drop a destroyed client key from this process's memory."""
    with _lock:
        key_id = _client_key.pop(client_id, None)
        if key_id is not None:
            _plain.pop(key_id, None)
    for key_id in list(DataKey.objects.filter(client_id=client_id).values_list("pk", flat=True)):
        with _lock:
            _plain.pop(key_id, None)


def clear_cache() -> None:
    with _lock:
        _plain.clear()
        _client_key.clear()
        _index_key.clear()
