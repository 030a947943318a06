"""Migration 0014: sessions recorded before ingest kept their first event's time start
when that event happened."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memories.models import Session
from tests import factories

pytestmark = pytest.mark.django_db

BEFORE = ("memories", "0013_lexeme_counts")


def _migrate(target) -> None:
    MigrationExecutor(connection).migrate([target])


def test_a_session_written_in_december_about_october_starts_in_october(personas):
    said = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    written = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    imported = factories.SessionFactory.create(client=personas.client, started_at=written)
    for minute in (30, 0):
        factories.EventFactory.create(
            client=personas.client, session=imported, observed_at=said.replace(minute=minute)
        )
    live = factories.SessionFactory.create(client=personas.client, started_at=said)
    factories.EventFactory.create(client=personas.client, session=live, observed_at=written)
    empty = factories.SessionFactory.create(client=personas.client, started_at=written)

    _migrate(BEFORE)
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes("memories")[0])
    assert dict(Session.objects.values_list("pk", "started_at")) == {
        imported.pk: said,
        live.pk: said,  # already started before its events: kept
        empty.pk: written,
    }
