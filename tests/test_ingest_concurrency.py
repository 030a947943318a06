"""Eight writers on one client at once: no duplicate memory, no lost event."""

import threading

import pytest
from django.db import connection

from memories.models import Event, Memory
from memories.services.write.ingest import EventInput, event_ingest

STATEMENTS = [
    "I prefer to be contacted by email.",
    "I live in Bristol.",
    "I have two children.",
    "I work at Lloyds Bank.",
]


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_create_no_duplicates(personas):
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def writer(number: int) -> None:
        try:
            barrier.wait()
            for index, statement in enumerate(STATEMENTS):
                event_ingest(
                    user=personas.advisor,
                    tenant=personas.tenant,
                    item=EventInput(
                        client="emma", content=statement, external_id=f"w{number}-{index}"
                    ),
                )
            # the same external id from every writer: stored once
            event_ingest(
                user=personas.advisor,
                tenant=personas.tenant,
                item=EventInput(client="emma", content="I live in Bristol.", external_id="same"),
            )
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert errors == []
    assert Event.objects.count() == 8 * len(STATEMENTS) + 1
    assert Memory.objects.count() == len(STATEMENTS)
    assert sorted(Memory.objects.values_list("dup_count", flat=True)) == [7, 7, 7, 7 + 1]


@pytest.mark.django_db(transaction=True)
def test_the_first_ingest_of_a_space_holds_no_table_lock_while_it_stores_vectors(personas):
    """On a database that has no embedding space yet, the space and its HNSW index are made
    in a transaction of their own: an ingest transaction that held the index's SHARE lock on
    the vectors' table while inserting vectors deadlocked with the next ones (seen with two
    web processes of four threads each on a fresh database)."""
    from memories.models import EmbeddingSpace
    from memories.services.embedding.providers import reset_chain

    EmbeddingSpace.objects.all().delete()
    reset_chain()
    held: list[list[str]] = []

    def watch(execute, sql, params, many, context):
        if sql.startswith('INSERT INTO "memories_memoryembedding"'):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() "
                    "AND relation = 'memories_memoryembedding'::regclass ORDER BY mode"
                )
                held.append([row[0] for row in cursor.fetchall()])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        event_ingest(
            user=personas.advisor,
            tenant=personas.tenant,
            item=EventInput(client="emma", content="I prefer to be contacted by email."),
        )
    assert EmbeddingSpace.objects.count() == 1
    # When it inserts its vectors, the ingest holds only the read lock of its neighbour
    # lookup, not the SHARE lock of the index's creation (which it held before).
    assert held == [["AccessShareLock"]]
