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
