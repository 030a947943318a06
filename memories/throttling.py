"""Rate limits per API key, with separate budgets for reads and writes.

The caller is its API key (its prefix); a browser session is its user; an anonymous
caller (only health is open) is its address. Counts live in the configured cache (the
database cache by default, so every web process shares them). Rates come from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``MEMORYHUB_THROTTLE_READ`` and
``MEMORYHUB_THROTTLE_WRITE``), read on every request so a changed setting applies at once.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

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
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiKey):
            ident = f"key:{request.auth.prefix}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return f"memoryhub:throttle:{self.scope}:{ident}"

    def describe(self) -> str:
        period = _PERIODS.get(self.duration, f"{self.duration} s")
        return f"{self.num_requests} {self.scope} requests per {period}"


class ReadRateThrottle(_KindThrottle):
    scope = READ


class WriteRateThrottle(_KindThrottle):
    scope = WRITE
