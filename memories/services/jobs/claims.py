"""Claims that make jobs safe to run twice or at the same time: row batches claimed with
``SKIP LOCKED`` one transaction each, and the per-client lock ingest takes, tried without
waiting."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import connection, transaction
from django.db.models import Count, QuerySet

from memories.conf import setting


def clients_try_lock(client_ids: Iterable) -> list:
    """Of ``client_ids``, those whose per-client lock this transaction now holds (the lock
    ingest takes, so a job never works on a client that is being written). Never waits:
    a client busy elsewhere is left for the next run."""
    ids = sorted(str(c) for c in client_ids)
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM unnest(%s::text[]) AS id "
            "WHERE pg_try_advisory_xact_lock(hashtextextended(id, 0))",
            [ids],
        )
        return [row[0] for row in cursor.fetchall()]


def claimed_in_batches(claim: Callable[[], list], work: Callable[[list], None]) -> int:
    """Until ``claim`` finds nothing: claim a batch (``select_for_update(skip_locked=True)``
    of at most JOB_BATCH_SIZE rows) and ``work`` on it, in one transaction per batch, so an
    interrupted run keeps what it finished and a second worker takes other rows. Returns
    how many rows were worked on."""
    done = 0
    while True:
        with transaction.atomic():
            batch = claim()
            if not batch:
                return done
            work(batch)
        done += len(batch)


def client_batches(memories: QuerySet, *, at_least: int = 1) -> Iterable[tuple[list, int]]:
    """The clients that have ``at_least`` of ``memories``, in batches of about
    JOB_BATCH_SIZE of those memories (a client is never split): (client ids, how many
    memories the batch holds). The sizes are read once, before the first batch."""
    sizes = list(
        memories.values("client_id")
        .annotate(n=Count("id"))
        .filter(n__gte=at_least)
        .order_by("client_id")
        .values_list("client_id", "n")
    )
    size, batch, held = int(setting("JOB_BATCH_SIZE")), [], 0
    for client_id, n in sizes:
        batch.append(client_id)
        held += n
        if held >= size:
            yield batch, held
            batch, held = [], 0
    if batch:
        yield batch, held


def batches(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), max(1, size)):
        yield items[start : start + size]
