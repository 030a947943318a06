"""Derived per-client state that a write makes stale: the profile.

Ingest and the background jobs mark a client's profile stale in their own transaction; a
refresh claims stale clients and clears the mark. Only the write that finds the profile
fresh queues a refresh, so a burst of events about one client queues one refresh, not one
per event.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone


def clients_mark_profile_stale(*, client_ids) -> list[str]:
    """Mark these clients' profiles stale and, for those that were not stale yet, queue a
    refresh on commit (the others have one coming). Returns the clients queued."""
    ids = sorted({str(client_id) for client_id in client_ids})
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memories_client SET profile_stale_since = %s "
            "WHERE id = ANY(%s::uuid[]) AND profile_stale_since IS NULL RETURNING id",
            [timezone.now(), ids],
        )
        fresh = sorted(str(row[0]) for row in cursor.fetchall())
    if fresh:
        transaction.on_commit(lambda: _enqueue_refresh(fresh))
    return fresh


def _enqueue_refresh(client_ids: list[str]) -> None:
    from django_q.tasks import async_task

    # By dotted name: memories does not import profiles.
    async_task("profiles.tasks.profiles_refresh", client_ids)
