"""When a memory was said, and when what it tells of happens, relative to today: what the
agent's context and the client pages say of time.

Two dates, never mixed up: the day it was *said* (``observed_at``) and the day it *happens*
(``occurred_on``, at its precision), when the text names one. What happens is:

- ``happened``: it took place before it was said ("I sold the car last week");
- ``ahead``: a plan, a deadline, an appointment whose day has not gone by yet;
- ``past``: such a plan whose day has gone by (it stays a memory, marked past).

"Happened" is said of the past only: a plan ahead is never told as having happened.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.utils import timezone

from memories.models import Memory, Precision

HAPPENED, AHEAD, PAST = "happened", "ahead", "past"


@dataclass(frozen=True)
class When:
    said: date
    day: date | None  # when what it tells of happens, if the text names a day
    precision: str  # of ``day``: day, week, month or year
    state: str  # HAPPENED, AHEAD, PAST, or "" (it names no day)
    days_ahead: int | None = None  # for AHEAD: how many days from today to its day

    @property
    def day_text(self) -> str:
        """``day`` at its precision, as the context writes it (2026-12-15, week of 2026-12-14,
        2026-12, 2026)."""
        if self.day is None:
            return ""
        if self.precision == Precision.WEEK:
            return f"week of {self.day.isoformat()}"
        if self.precision == Precision.MONTH:
            return self.day.strftime("%Y-%m")
        if self.precision == Precision.YEAR:
            return str(self.day.year)
        return self.day.isoformat()


def when_told(memory: Memory, now: datetime | None = None) -> When:
    now = now or timezone.now()
    today = timezone.localdate(now)
    said = timezone.localdate(memory.observed_at)
    day = memory.occurred_on
    if day is None:
        return When(said, None, "", "")
    precision = memory.occurred_precision or Precision.DAY
    last = last_day(day, precision)
    if memory.expires_at is not None or day > said:
        # A plan or a deadline (its day was ahead when it was said).
        if memory.expires_at is not None and memory.expires_at <= now:
            return When(said, day, precision, PAST)
        if memory.expires_at is None and last < today:
            return When(said, day, precision, PAST)
        return When(said, day, precision, AHEAD, max(0, (day - today).days))
    return When(said, day, precision, HAPPENED)


def last_day(day: date, precision: str) -> date:
    if precision == Precision.WEEK:
        return day + timedelta(days=6)
    if precision == Precision.MONTH:
        return day.replace(day=calendar.monthrange(day.year, day.month)[1])
    if precision == Precision.YEAR:
        return date(day.year, 12, 31)
    return day
