"""Derived per-client state that a write makes stale: the profile, and session summaries.

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

A session summary (``jobs.summaries``) lists the facts it derives from. When one of them
leaves memory (superseded, corrected, decided against in review, forgotten, expired), the
summary would go on telling the agent what a person just overruled: ``summaries_retire``
takes it out at once, in the same transaction, and the session is summarised again by the
next run of the job, from what is live then.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from memories.models import LIVE_STATUSES, Client, RelationType, Status
from memories.services.signals import profiles_stale

# The ``source_ref`` of the memories the summary job writes.
SUMMARY_SOURCE_REF = "job:summarize_episodes"
# A fact in one of these statuses is no longer what the client's memory says (merged is:
# its content lives on in the memory it merged into).
_GONE = (Status.SUPERSEDED, Status.DELETED, Status.EXPIRED)
# The sessions of the live summaries that derive from any of the facts, locked in the
# order the summary job locks them (by id, before their memories): a run summarising one of
# them meanwhile is waited for, then its summary is found too.
_SESSIONS = (
    "SELECT x.id FROM memories_session x WHERE x.id IN (SELECT s.session_id "
    "FROM memories_relation r JOIN memories_memory s ON s.id = r.source_id "
    "WHERE r.target_id = ANY(%s::uuid[]) AND r.type = %s AND s.source_ref = %s "
    "AND s.status = ANY(%s)) ORDER BY x.id FOR UPDATE"
)
# Those summaries, out of memory; their sessions due for a new summary.
_RETIRE = (
    "WITH outdated AS (UPDATE memories_memory s SET status = %s, invalidated_at = %s, "
    "status_reason = 'outdated: a fact it summed up has left memory' FROM memories_relation r "
    "WHERE r.target_id = ANY(%s::uuid[]) AND r.type = %s AND s.id = r.source_id "
    "AND s.source_ref = %s AND s.status = ANY(%s) AND s.session_id = ANY(%s::uuid[]) "
    "RETURNING s.session_id) "
    "UPDATE memories_session SET summarized_at = NULL "
    "WHERE id IN (SELECT session_id FROM outdated)"
)


def summaries_retire(*, memory_ids) -> None:
    """Take out of memory the session summaries that derive from any of ``memory_ids``
    that has left it, and have their sessions summarised again. In the caller's
    transaction; the caller marks the clients' profiles stale, as every write does."""
    ids = sorted({str(memory_id) for memory_id in memory_ids})
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM memories_memory WHERE id = ANY(%s::uuid[]) AND status = ANY(%s)",
            [ids, list(_GONE)],
        )
        gone = [row[0] for row in cursor.fetchall()]
        if not gone:
            return
        summaries: list[Any] = [RelationType.DERIVES, SUMMARY_SOURCE_REF, list(LIVE_STATUSES)]
        cursor.execute(_SESSIONS, [gone, *summaries])
        sessions = [row[0] for row in cursor.fetchall()]
        if sessions:
            cursor.execute(_RETIRE, [Status.SUPERSEDED, timezone.now(), gone, *summaries, sessions])


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
        transaction.on_commit(lambda: _profiles_stale(fresh))
    return fresh


def _profiles_stale(client_ids: list[str]) -> None:
    # ``profiles`` queues the rebuild (memories does not import it).
    profiles_stale.send(sender=Client, client_ids=client_ids)
