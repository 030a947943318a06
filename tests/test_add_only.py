"""The database itself refuses to rewrite history."""

import pytest
from django.db import IntegrityError, connection, transaction

from memories.db import content_rewrite
from memories.models import Event, Memory
from tests.support import factories

pytestmark = pytest.mark.django_db


def _sql(statement, params):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount


@pytest.mark.parametrize(
    ("column", "value"),
    [("content", "rewritten"), ("title", "new"), ("kind", "claim"), ("content_hash", "x")],
)
def test_raw_update_of_memory_content_fails(column, value):
    memory = factories.MemoryFactory.create(content="Prefers email.")
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        _sql(f"UPDATE memories_memory SET {column} = %s WHERE id = %s", [value, memory.pk])
    memory.refresh_from_db()
    assert memory.content == "Prefers email."
    assert memory.kind == "semantic"


def test_memory_state_may_change():
    memory = factories.MemoryFactory.create()
    assert (
        _sql(
            "UPDATE memories_memory SET tier = 'core', status = 'promoted', usage_count = 3 "
            "WHERE id = %s",
            [memory.pk],
        )
        == 1
    )
    memory.refresh_from_db()
    assert (memory.tier, memory.status, memory.usage_count) == ("core", "promoted", 3)


def test_memory_cannot_be_deleted():
    memory = factories.MemoryFactory.create()
    with pytest.raises(IntegrityError, match="cannot be deleted"), transaction.atomic():
        _sql("DELETE FROM memories_memory WHERE id = %s", [memory.pk])
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_raw_update_of_event_fails():
    event = factories.EventFactory.create(content="I prefer email.")
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        _sql("UPDATE memories_event SET content = 'x' WHERE id = %s", [event.pk])
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        _sql("UPDATE memories_event SET speaker = 'x' WHERE id = %s", [event.pk])
    event.refresh_from_db()
    assert (event.content, event.speaker) == ("I prefer email.", "client")


def test_raw_delete_of_event_fails():
    event = factories.EventFactory.create()
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        _sql("DELETE FROM memories_event WHERE id = %s", [event.pk])
    assert Event.objects.filter(pk=event.pk).exists()


def test_orm_save_of_changed_content_fails():
    memory = factories.MemoryFactory.create(content="Prefers email.")
    memory.content = "Prefers phone."
    with pytest.raises(IntegrityError), transaction.atomic():
        memory.save()


def test_rewrite_door_opens_only_inside_its_block():
    memory = factories.MemoryFactory.create(content="Prefers email.")
    event = factories.EventFactory.create()
    with transaction.atomic():
        with content_rewrite():
            _sql(
                "UPDATE memories_memory SET content = 'gAAAA-ciphertext' WHERE id = %s", [memory.pk]
            )
            _sql("DELETE FROM memories_event WHERE id = %s", [event.pk])
        with pytest.raises(IntegrityError), transaction.atomic():
            _sql("UPDATE memories_memory SET content = 'again' WHERE id = %s", [memory.pk])
    memory.refresh_from_db()
    assert memory.content == "gAAAA-ciphertext"
    assert not Event.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_rewrite_door_needs_a_transaction():
    with pytest.raises(RuntimeError, match="inside transaction"), content_rewrite():
        pass
