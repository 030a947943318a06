"""Logging filters (settings.LOGGING)."""

from __future__ import annotations

import logging


class ExpectedDenials(logging.Filter):
    """A denied request (403) is an answer the permissions gave, not a fault: keep Django's
    one-line warning about it, without the traceback it attaches."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info = None
            record.exc_text = None
        return True
