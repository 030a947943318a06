"""Reads on a streaming replica of PostgreSQL, when ``MEMORYHUB_REPLICA_URL`` names one.

What reads from it: the requests that only read (the API's safe methods, search and
context, the pages' GETs), when the replica is up, close enough behind the primary
(``MEMORYHUB_REPLICA_MAX_LAG`` seconds) and has replayed the caller's own last write.
Everything else reads and writes on the primary: writes, the admin, background tasks,
API key checks (a revoked key stops at once), and any read inside a transaction.

Read-your-writes: a request that may have written stores the primary's WAL position
after it, the caller's *write mark*: on the API key's row for an agent, in a cookie for a
browser. A later read of that caller goes to the replica only once the replica has
replayed up to the mark, else to the primary: an agent that posts an event and searches
at once finds what it posted, whichever process answers it. The replica is never waited
for: the primary answers at once, and a replica behind is the exception.

A replica that cannot be reached, or that fails mid-request, costs no request: the
request runs again on the primary, and no read goes to the replica for
``MEMORYHUB_REPLICA_RETRY`` seconds. Each process asks the replica where it stands at
most once a second (``replica_health``); readiness and ``/metrics`` show it.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from memoryhub.observability import metrics

logger = logging.getLogger(__name__)

REPLICA = "replica"
PRIMARY = DEFAULT_DB_ALIAS
WRITE_MARK_COOKIE = "memoryhub_written"
# ASCII digits only: str.isdigit() also takes "²" or "①", which int() refuses, and anyone
# who can set a cookie for the domain chooses its value. A WAL position is a bigint: 19
# digits at most.
_WRITE_MARK = re.compile(r"[0-9]{1,19}")
CHECK_SECONDS = 1.0
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Tables that must be read where they are written: the cache holds the rate limits.
PRIMARY_ONLY_TABLES = frozenset({"memoryhub_cache"})

# Where the replica stands, as numbers: the position it has replayed up to (bytes of WAL
# since 0/0) and how far it is behind (0 when it has replayed everything it received).
_REPLICA_STATE_SQL = (
    "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, "
    "CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 "
    "ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)
WRITE_MARK_SQL = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"


def configured() -> bool:
    return REPLICA in settings.DATABASES


@dataclass
class Standing:
    """The replica as last seen by this process."""

    status: str  # "ok", "behind", "down", "not_standby" or "unknown" (not asked yet)
    replayed: int | None = None  # WAL position replayed up to
    lag_seconds: float | None = None


class ReplicaHealth:
    """Where the replica stands, asked at most once a second per process (from the
    calling thread's own connection to it), and after a failure not asked again for
    ``MEMORYHUB_REPLICA_RETRY`` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.standing = Standing("unknown")
        self._checked_at = float("-inf")
        self._down_until = float("-inf")

    def usable_for(self, mark: int | None) -> tuple[bool, str]:
        """Whether a read with the caller's write ``mark`` may go to the replica, and why
        (the reason is what the metrics count)."""
        now = time.monotonic()
        if now < self._down_until:
            return False, "replica_down"
        standing = self.standing
        stale = now - self._checked_at > CHECK_SECONDS
        if stale or (mark is not None and (standing.replayed or 0) < mark):
            standing = self.check()
        if standing.status != "ok":
            return False, f"replica_{standing.status}"
        if mark is not None and (standing.replayed or 0) < mark:
            return False, "own_write"
        return True, "replica"

    def check(self) -> Standing:
        """Ask the replica now."""
        try:
            with connections[REPLICA].cursor() as cursor:
                cursor.execute(_REPLICA_STATE_SQL)
                replayed, lag = cursor.fetchone()
        except DatabaseError:
            logger.warning("the replica does not answer; reads go to the primary", exc_info=True)
            self.mark_down()
            return self.standing
        if replayed is None:
            status = "not_standby"  # not in recovery: nothing says what it has replayed
        elif lag > settings.MEMORYHUB_REPLICA_MAX_LAG:
            status = "behind"
        else:
            status = "ok"
        standing = Standing(status, replayed, float(lag) if replayed is not None else None)
        with self._lock:
            self.standing, self._checked_at = standing, time.monotonic()
        _observed(standing)
        return standing

    def probe(self) -> Standing:
        """Where the replica stands now (for readiness): asked, unless it failed within
        the last ``MEMORYHUB_REPLICA_RETRY`` seconds."""
        if time.monotonic() < self._down_until:
            return self.standing
        return self.check()

    def mark_down(self) -> None:
        with self._lock:
            self.standing = Standing("down")
            self._checked_at = time.monotonic()
            self._down_until = self._checked_at + settings.MEMORYHUB_REPLICA_RETRY
        _observed(self.standing)
        close_quietly(REPLICA)


replica_health = ReplicaHealth()


def _observed(standing: Standing) -> None:
    metrics.replica_observed(standing.status, standing.lag_seconds)


def close_quietly(alias: str) -> None:
    with contextlib.suppress(DatabaseError):  # a dead connection is gone either way
        connections[alias].close()


# --- This request's reads. ---


@dataclass
class _Reads:
    reads_only: bool = False  # the view only reads: its reads may go to the replica
    mark: int | None = None  # the caller's write mark
    alias: str | None = None  # where this request's reads go, once decided


_reads: ContextVar[_Reads | None] = ContextVar("memoryhub_replica_reads", default=None)


def read_alias() -> str:
    """Where the current code's reads go: the replica for a read-only request that may
    use it, the primary otherwise (decided at the first read, then kept, so one request
    does not mix the two). Always the primary inside a transaction."""
    state = _reads.get()
    if state is None or not state.reads_only:
        return PRIMARY
    if connections[PRIMARY].in_atomic_block:
        return PRIMARY
    if state.alias is None:
        usable, reason = replica_health.usable_for(state.mark)
        state.alias = REPLICA if usable else PRIMARY
        metrics.read_routed("replica" if state.alias == REPLICA else "primary", reason)
    return state.alias


def caller_wrote_at(mark: int | None) -> None:
    """The caller's write mark, once known (an API key's, from its row)."""
    state = _reads.get()
    if state is None or mark is None:
        return
    state.mark = max(mark, state.mark or 0)
    if state.alias == REPLICA and (replica_health.standing.replayed or 0) < state.mark:
        state.alias = None  # decided before the caller was known: decide again


class ReplicaRouter:
    """Reads go where ``read_alias`` says; writes and migrations to the primary."""

    def db_for_read(self, model, **hints):
        if model._meta.db_table in PRIMARY_ONLY_TABLES:
            return PRIMARY
        return read_alias()

    def db_for_write(self, model, **hints):
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints):
        return True  # the replica is a copy of the primary: every row is on both

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == PRIMARY


def write_mark() -> int | None:
    """The primary's WAL position now: past the end of every write committed before."""
    try:
        with connections[PRIMARY].cursor() as cursor:
            cursor.execute(WRITE_MARK_SQL)
            return int(cursor.fetchone()[0])
    except DatabaseError:
        return None  # the primary is down: nothing was written


class ReplicaReadsMiddleware:
    """Sends the reads of read-only requests to the replica (see the module's text), and
    marks each caller's writes. Unused without ``MEMORYHUB_REPLICA_URL``."""

    def __init__(self, get_response):
        if not configured():
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        replica = connections[REPLICA]
        if replica.connection is None:
            replica.errors_occurred = False  # a closed connection's, not this request's
        state = _Reads(mark=_cookie_mark(request))
        token = _reads.set(state)
        try:
            response = self.get_response(request)
            if state.alias == REPLICA and connections[REPLICA].errors_occurred:
                # The replica failed this request (down, or a query cancelled by its
                # recovery): it only read, so it runs again on the primary.
                logger.warning("the replica failed a read; it runs again on the primary")
                replica_health.mark_down()
                state.alias = PRIMARY
                metrics.read_routed("primary", "replica_failed")
                response = self.get_response(request)
            wrote = not state.reads_only and request.method not in SAFE_METHODS
            if wrote and response.status_code < 400:  # a refused request wrote nothing
                self._mark_write(request, response)
        finally:
            _reads.reset(token)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        state = _reads.get()
        if state is None:
            return None
        view = getattr(view_func, "cls", None) or getattr(view_func, "view_class", None)
        reads = getattr(view, "read_methods", SAFE_METHODS)
        state.reads_only = request.method in reads and not _is_admin(request)
        if state.reads_only and request.method not in SAFE_METHODS:
            request.body  # noqa: B018 - kept, so that a second run can read it again
        return None

    @staticmethod
    def _mark_write(request, response) -> None:
        key = getattr(request, "auth", None)
        if key is not None and hasattr(key, "written_lsn"):
            with contextlib.suppress(DatabaseError):  # the primary is down: nothing written
                type(key).objects.filter(pk=key.pk).update(
                    written_lsn=_database_expression(WRITE_MARK_SQL)
                )
            return
        mark = write_mark()
        if mark is not None:
            response.set_cookie(
                WRITE_MARK_COOKIE,
                str(mark),
                max_age=settings.MEMORYHUB_REPLICA_MAX_LAG + 60,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )


def _database_expression(select: str):
    from django.db.models.expressions import RawSQL

    return RawSQL(f"({select})", [])  # noqa: S611 - a constant statement, no input


def _cookie_mark(request) -> int | None:
    value = request.COOKIES.get(WRITE_MARK_COOKIE, "")
    return int(value) if _WRITE_MARK.fullmatch(value) else None


def _is_admin(request) -> bool:
    match = getattr(request, "resolver_match", None)
    return bool(match and match.namespace == "admin")
