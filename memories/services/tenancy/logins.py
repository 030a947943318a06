"""Login throttling: failed passwords per account and per address, and the lockout.

Every attempt is counted before the password is checked, in the rate table the API's
limits use (``RateWindow``: one UPSERT, shared by every web process), under two keys: the
account (the username as typed, hashed) and the address. ``LOGIN_MAX_FAILURES`` attempts
on an account, or ``LOGIN_MAX_FAILURES_PER_ADDRESS`` from an address, without a success
lock it for ``LOGIN_LOCKOUT_MINUTES`` after the last of them; while locked, every attempt
is refused before the password is looked at, the right one too, and does not move the end
of the lockout. A streak ends when no attempt came for that long. A success clears the
account's count and takes its own attempt off the address's count.

In the rate row, ``hits`` is the attempts of the streak and ``window_start`` the time of
the last attempt that was let through (so the lockout ends ``LOCKOUT`` after it).
Counting first makes the limit exact under concurrent attempts: each gets its own
number, and only the ones within the limit reach the password check.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from memories.conf import setting
from memories.db import bound_cursor
from memories.models import Membership, RateWindow
from memories.services.tenancy.audit import audit


@dataclass(frozen=True)
class Attempt:
    """One login attempt as counted: ``refused`` when a lockout was already on."""

    username: str
    address: str
    counts: dict[str, tuple[int, int]]  # scope → (attempts in the streak, last let through)
    now: int

    @property
    def refused(self) -> bool:
        return any(hits > _limit(scope) for scope, (hits, _) in self.counts.items())

    def locked_minutes(self, *, after_failure: bool = False) -> int | None:
        """Minutes until the lockout ends, if one is on (or, ``after_failure``, if this
        attempt, now failed, started one); None when not locked."""
        ends = [
            last + _lockout_seconds()
            for scope, (hits, last) in self.counts.items()
            if hits > _limit(scope) or (after_failure and hits == _limit(scope))
        ]
        if not ends:
            return None
        return max(1, math.ceil((max(ends) - self.now) / 60))


ACCOUNT, ADDRESS = "account", "address"


def _limit(scope: str) -> int:
    name = "LOGIN_MAX_FAILURES" if scope == ACCOUNT else "LOGIN_MAX_FAILURES_PER_ADDRESS"
    return int(setting(name))


def _lockout_seconds() -> int:
    return round(float(setting("LOGIN_LOCKOUT_MINUTES")) * 60)


def _key(scope: str, value: str) -> str:
    if scope == ACCOUNT:  # whatever was typed, of any length or alphabet
        value = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return f"memoryhub:login:{scope}:{value}"[:200]


def login_attempt(*, username: str, address: str) -> Attempt:
    """Count an attempt to log in as ``username`` from ``address``."""
    now = int(time.time())
    counts = {}
    with bound_cursor() as cursor:
        for scope, value in ((ACCOUNT, username), (ADDRESS, address)):
            cursor.execute(
                "INSERT INTO memories_ratewindow AS r (key, window_start, hits, previous_hits) "
                "VALUES (%s, %s, 1, 0) ON CONFLICT (key) DO UPDATE SET "
                "hits = CASE WHEN r.window_start <= EXCLUDED.window_start - %s THEN 1 "
                "ELSE r.hits + 1 END, "
                "window_start = CASE WHEN r.window_start <= EXCLUDED.window_start - %s "
                "OR r.hits < %s THEN EXCLUDED.window_start ELSE r.window_start END "
                "RETURNING hits, window_start",
                [_key(scope, value), now, _lockout_seconds(), _lockout_seconds(), _limit(scope)],
            )
            counts[scope] = tuple(cursor.fetchone())
    return Attempt(username=username, address=address, counts=counts, now=now)


def login_failed(attempt: Attempt) -> None:
    """The password was wrong. If this attempt was the last one allowed, the lockout
    starts: audited once, by the one attempt that reached the limit."""
    for scope, (hits, _) in attempt.counts.items():
        if hits != _limit(scope):
            continue
        if scope == ACCOUNT:
            user_id = (
                get_user_model()
                .objects.filter(username=attempt.username)
                .values_list("pk", flat=True)
                .first()
            )
            tenant_id = None
            if user_id is not None:
                tenant_id = (
                    Membership.objects.filter(user_id=user_id)
                    .values_list("tenant_id", flat=True)
                    .first()
                )
            object_type, object_id = "user", user_id or "unknown"
        else:
            tenant_id, object_type, object_id = None, "address", attempt.address
        audit(
            tenant_id=tenant_id,
            actor_label=f"login from {attempt.address}"[:200],
            action="login.locked",
            object_type=object_type,
            object_id=object_id,
            reason=f"{hits} failed logins; locked for {setting('LOGIN_LOCKOUT_MINUTES')} minutes",
            data={"scope": scope, "failures": hits, "address": attempt.address},
        )


def login_succeeded(attempt: Attempt) -> None:
    """The right password, not locked: the account starts afresh, and this attempt no
    longer counts against the address."""
    RateWindow.objects.filter(key=_key(ACCOUNT, attempt.username)).delete()
    with bound_cursor() as cursor:
        cursor.execute(
            "UPDATE memories_ratewindow SET hits = GREATEST(hits - 1, 0) WHERE key = %s",
            [_key(ADDRESS, attempt.address)],
        )
