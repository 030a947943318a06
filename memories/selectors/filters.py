"""What a read asks for, beside the client: the filters of a search or a list. A value of its
own, so that permissions can narrow it (``readable_filters``) without importing the
retrieval that applies it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class Filters:
    tier: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    as_of: datetime | None = None
    speakers: tuple[str, ...] = ()  # lower case
    happened_since: date | None = None
    happened_until: date | None = None
