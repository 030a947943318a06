"""Rate limits per API key, with separate budgets for reads and writes.

The caller is its API key (its prefix); a browser session is its user; an anonymous
caller (only health is open) is its address. Rates come from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``MEMORYHUB_THROTTLE_READ`` and
``MEMORYHUB_THROTTLE_WRITE``), read on every request so a changed setting applies at once.

Counting is a sliding-window counter in PostgreSQL, so every web process shares it: one
UPSERT per request into an UNLOGGED table (``RateWindow``) returns the caller's hits in
the current and the previous window, and the estimate is
``previous × (share of the previous window still inside the last period) + current``.
Requests over the limit count too: a caller that keeps hammering stays limited.
(DRF's cache-backed history took six round trips and a synchronous commit per request
on the database cache: more than the search it guarded.)
"""

from __future__ import annotations

import time

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from memories.db import bound_cursor
from memories.models import ApiKey

READ, WRITE = "read", "write"
_PERIODS = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}


def request_kind(request, view) -> str:
    """Whether ``request`` reads or writes. A view whose POST only reads (search,
    context) says so with ``read_methods``."""
    read_methods = getattr(view, "read_methods", ("GET", "HEAD", "OPTIONS"))
    return READ if request.method in read_methods else WRITE


class _KindThrottle(SimpleRateThrottle):
    scope: str

    def get_rate(self):
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        if rate in (None, "", "off", "none"):
            return None
        return rate

    def allow_request(self, request, view):
        if request_kind(request, view) != self.scope:
            return True
        # The rate is read per request, not once at start-up as DRF does.
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        assert self.num_requests is not None and self.duration is not None  # a rate is set
        now = time.time()
        window = int(now // self.duration) * self.duration
        hits, previous = _hit(self.get_cache_key(request, view), window, self.duration)
        carried = previous * (1 - (now - window) / self.duration)
        allowed = carried + hits <= self.num_requests
        if not allowed:
            self.retry_after = _retry_after(
                now=now,
                window=window,
                duration=self.duration,
                limit=self.num_requests,
                hits=hits,
                previous=previous,
            )
        return allowed

    def wait(self):
        return self.retry_after

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiKey):
            ident = f"key:{request.auth.prefix}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return f"memoryhub:throttle:{self.scope}:{ident}"

    def describe(self) -> str:
        assert self.duration is not None  # only a refused request is described
        period = _PERIODS.get(self.duration, f"{self.duration} s")
        return f"{self.num_requests} {self.scope} requests per {period}"


class ReadRateThrottle(_KindThrottle):
    scope = READ


class WriteRateThrottle(_KindThrottle):
    scope = WRITE


def _retry_after(
    *, now: float, window: int, duration: int, limit: int, hits: int, previous: int
) -> float:
    """Seconds until one more request would be allowed if none came meanwhile (what
    ``Retry-After`` promises). The refused requests count, so the end of the current
    window is not enough: there, this window's hits become the carried-over ones.

    Within this window the carry shrinks until ``carried + hits + 1 <= limit``; past it,
    ``hits × (1 - elapsed) + 1 <= limit`` in the next window."""
    if previous and hits + 1 <= limit:
        # The carry alone is in the way: it falls below the room left within this window.
        moment = window + duration * (1 - (limit - hits - 1) / previous)
        return max(moment - now, 0.0)
    share = 0.0 if hits <= limit - 1 else 1 - (limit - 1) / hits
    return window + duration * (1 + share) - now


def _hit(key: str, window: int, duration: int) -> tuple[int, int]:
    """Count one request for ``key`` in the window starting at ``window``; the hits of
    that window and of the one before it."""
    with bound_cursor() as cursor:
        cursor.execute(
            "INSERT INTO memories_ratewindow AS r (key, window_start, hits, previous_hits) "
            "VALUES (%s, %s, 1, 0) ON CONFLICT (key) DO UPDATE SET "
            "previous_hits = CASE WHEN r.window_start = EXCLUDED.window_start "
            "THEN r.previous_hits WHEN r.window_start = EXCLUDED.window_start - %s "
            "THEN r.hits ELSE 0 END, "
            "hits = CASE WHEN r.window_start = EXCLUDED.window_start THEN r.hits + 1 ELSE 1 END, "
            "window_start = EXCLUDED.window_start RETURNING hits, previous_hits",
            [key, window, duration],
        )
        return cursor.fetchone()
