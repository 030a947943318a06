"""Webhook sequence numbers follow commits: a write that takes a client's next number
holds it until it commits, so a second write about the same client, in another
transaction, waits and takes the number after it (a receiver that orders by number applies
them in the order the database did)."""

import threading

import pytest
from django.db import connection, transaction

from memories.models import WebhookDelivery
from memories.services.webhooks import events
from tests.support import factories

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def test_a_second_write_about_the_client_waits_for_the_first_to_commit(personas):
    # Loopback, refused by the sender at once: the deliveries are what this test reads.
    factories.WebhookEndpointFactory.create(tenant=personas.tenant, url="http://127.0.0.1:9/")
    first, second = (
        factories.ReviewItemFactory.create(memory__client=personas.client) for _ in range(2)
    )
    numbered, release, done = threading.Event(), threading.Event(), threading.Event()
    commits: list[str] = []

    def decide(item, hold: bool) -> None:
        try:
            with transaction.atomic():
                events.review_decided(item=item)
                if hold:
                    numbered.set()
                    release.wait(30)
                commits.append(str(item.pk))
        finally:
            connection.close()
            if not hold:
                done.set()

    holder = threading.Thread(target=decide, args=(first, True))
    holder.start()
    assert numbered.wait(30)
    follower = threading.Thread(target=decide, args=(second, False))
    follower.start()
    for _ in range(300):  # until the follower is seen waiting for the holder's row lock
        if _waiting_on_a_lock():
            break
        done.wait(0.1)
    assert not done.is_set() and _waiting_on_a_lock() == 1
    release.set()
    holder.join(30)
    follower.join(30)

    numbers = {d.payload["review_item"]["id"]: d.sequence for d in WebhookDelivery.objects.all()}
    assert commits == [str(first.pk), str(second.pk)]
    assert (numbers[str(first.pk)], numbers[str(second.pk)]) == (1, 2)
