"""The worker's logger says a repeated error once a minute, as configured in settings."""

import logging
import uuid
from datetime import UTC, datetime, timedelta

import time_machine


class _Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_the_worker_says_a_repeated_error_once_a_minute():
    worker = logging.getLogger("django-q")
    kept = _Kept()
    worker.addHandler(kept)
    start = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    # Words of this test only: the filter remembers what the suite's other tests said.
    closed, other = (f"{said} ({uuid.uuid4().hex[:8]})" for said in ("closed", "another"))
    try:
        with time_machine.travel(start, tick=False):
            for _ in range(120):  # a minute of polls, twice a second
                worker.error(closed)
            worker.error(other)
        with time_machine.travel(start + timedelta(seconds=61), tick=False):
            worker.error(closed)
            worker.info("ready for work")
    finally:
        worker.removeHandler(kept)
    assert kept.lines == [
        closed,
        other,
        f"{closed} (and 119 more times in the last minute)",
        "ready for work",
    ]
