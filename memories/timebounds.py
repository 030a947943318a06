"""The earliest time memoryhub takes in: 1900-01-01 (UTC).

Nothing a client's memory holds was said before it, and everything from it on ranks (the
recency component is total: ``retrieval.signals.recency_sql``). Before year 1 a time
cannot be read back at all (PostgreSQL stores years BC, Python has none), which a time
such as ``0001-01-01T00:00:00+01:00`` would reach."""

from __future__ import annotations

from datetime import UTC, date, datetime

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
EARLIEST_DAY = EARLIEST.date()


def too_early(value: datetime | date) -> bool:
    if isinstance(value, datetime):
        return value < EARLIEST
    return value < EARLIEST_DAY
