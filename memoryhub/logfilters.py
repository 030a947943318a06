"""Logging filters (settings.LOGGING)."""

from __future__ import annotations

import logging
import threading


class ExpectedDenials(logging.Filter):
    """A denied request (403) is an answer the permissions gave, not a fault: keep Django's
    one-line warning about it, without the traceback it attaches."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info = None
            record.exc_text = None
        return True


class RepeatedErrors(logging.Filter):
    """The same error said again and again is said once a minute. While the database is
    down, django-q2's worker fails on every poll (twice a second) with the same words;
    the first line says it, the next one a minute later says how many times it came again
    meanwhile, and nothing in between."""

    def __init__(self, name: str = "", window: float = 60.0) -> None:
        super().__init__(name)
        self.window = window
        self._seen: dict[tuple[str, int, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.levelno, record.getMessage().splitlines()[0][:200])
        with self._lock:
            last, missed = self._seen.get(key, (0.0, 0))
            if record.created - last < self.window:
                self._seen[key] = (last, missed + 1)
                return False
            self._seen[key] = (record.created, 0)
            if len(self._seen) > 1000:  # forget the oldest
                del self._seen[min(self._seen, key=lambda k: self._seen[k][0])]
        if missed:
            record.msg = f"{record.getMessage()} (and {missed} more times in the last minute)"
            record.args = None
        return True
