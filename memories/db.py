"""Database helpers that belong to no single service."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def content_rewrite():
    """Open the ADD-only door for the enclosed statements of the current transaction.

    Only erasure and re-encryption may use it. The setting is transaction-local, so it
    cannot leak to another request on a pooled connection, and it is closed again on exit
    so the rest of the transaction stays protected.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("content_rewrite() must run inside transaction.atomic()")
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('memoryhub.allow_rewrite', 'on', true)")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('memoryhub.allow_rewrite', 'off', true)")
