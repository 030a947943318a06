"""One JSON object per log line: time, level, logger, message, the request id, and what
the caller passed in ``extra`` (the access log's method, route, status, duration).

A request passed along (Django's ``django.request`` logger passes one with every 4xx and
5xx) is logged as its method and path only: its query string may hold what a person
said (a page's ``?message=…``), an encrypted tenant's words included."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from django.http import HttpRequest

# Attributes every LogRecord has: anything else on a record came from ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if rid := getattr(record, "request_id", ""):
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = _without_query(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def _without_query(value):
    """A request as ``{"method", "path"}``; anything else as it is."""
    if isinstance(value, HttpRequest):
        return {"method": value.method, "path": value.path}
    return value
