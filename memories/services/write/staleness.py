"""Derived per-client state that a write makes stale: the profile.

Every door that changes what a client's memory holds (ingest, a review decision, a
promotion, a forget, a tier move, the background jobs) marks the client's profile stale
in its own transaction. The next read of the profile (the context call, the client's
page) rebuilds it first when it is marked, so what the agent reads is right at once even
when no worker runs (``profiles.services.profile.profile_for``); a refresh queued on
commit rebuilds it for whoever reads it later. Only the write that finds the profile
fresh queues one, so a burst of events about one client queues one refresh, not one per
event.

The mark always locks the client's row, in a fixed order: a rebuild holds that lock
while it reads, so a write committing meanwhile waits for it and marks the profile stale
again after it, instead of finding the mark still set and being missed.
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
        # NO KEY UPDATE: rows that only reference the client (reads logged, memories
        # added) are not held up by the lock.
        cursor.execute(
            "SELECT id, profile_stale_since IS NULL FROM memories_client "
            "WHERE id = ANY(%s::uuid[]) ORDER BY id FOR NO KEY UPDATE",
            [ids],
        )
        fresh = sorted(str(client_id) for client_id, is_fresh in cursor.fetchall() if is_fresh)
        if fresh:
            cursor.execute(
                "UPDATE memories_client SET profile_stale_since = %s WHERE id = ANY(%s::uuid[])",
                [timezone.now(), fresh],
            )
    if fresh:
        transaction.on_commit(lambda: _enqueue_refresh(fresh))
    return fresh


def _enqueue_refresh(client_ids: list[str]) -> None:
    from django_q.tasks import async_task

    # By dotted name: memories does not import profiles. One per write burst, so its
    # success is not stored (a failure still is): a result row per write would be most of
    # the worker's work (docs/decisions.md).
    async_task("profiles.tasks.profiles_refresh", client_ids, save=False)
