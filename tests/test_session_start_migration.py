"""Migration 0014: sessions recorded before ingest kept their first event's time start
when that event happened."""

from datetime import UTC, datetime

import pytest

from memories.models import Session
from tests.support import factories
from tests.support.migrations import latest, migrate

pytestmark = pytest.mark.django_db

BEFORE = ("memories", "0013_lexeme_counts")


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

    migrate(BEFORE)
    migrate(latest())
    assert dict(Session.objects.values_list("pk", "started_at")) == {
        imported.pk: said,
        live.pk: said,  # already started before its events: kept
        empty.pk: written,
    }
