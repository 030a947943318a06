"""How ``manage.py serve`` runs the production web server: granian serving the ASGI app
(``memoryhub.asgi``: Django through ``wsgi_bridge``), sized from the cores and memory it
finds.

The sizes are chosen together so that the processes do not oversubscribe the CPU: one web
process per core (while memory allows), a few requests at a time in each (a request spends
much of its time waiting for PostgreSQL, which runs on the same cores), and the local
embedder on one thread per request: with as many requests in flight as cores, onnxruntime's
own thread pool would only make threads wait on each other (measured in docs/decisions/0017).
Every size can be set by an environment variable.
"""

from __future__ import annotations

import ctypes
import math
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

WORKERS_ENV = "MEMORYHUB_WEB_WORKERS"
THREADS_ENV = "MEMORYHUB_WEB_THREADS"
EMBEDDER_THREADS_ENV = "MEMORYHUB_LOCAL_EMBEDDER_THREADS"
# What one web process takes with the local model loaded and a few requests in flight
# (measured: 230-280 MB RSS), with room to spare.
WORKER_MEMORY = 512 * 2**20
# The web processes may take half the memory: PostgreSQL (a quarter for its buffers when
# embedded) and the django-q2 worker need the rest.
WEB_MEMORY_SHARE = 0.5
DEFAULT_THREADS = 4
# Connections a web process takes at once, per thread. Granian counts a connection from its
# accept, headers not yet read included: at 8 per thread, 64 connections that sent half
# their headers stopped two processes for granian's header timeout (30 s then, 5 s now).
BACKPRESSURE_PER_THREAD = 32
HEADER_READ_TIMEOUT_MS = 5000
# Seconds a stopping worker is given to finish its requests before it is killed.
GRACEFUL_TIMEOUT = 30
PR_SET_PDEATHSIG = 1  # prctl(2)


def stop_with_parent() -> None:
    """A SIGTERM to this process when its parent dies, however it dies (kept across exec)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: serve's own clean-up still applies
        pass


def cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may use: its CPU affinity, or its container's quota
    (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``) when that is lower."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        count = os.cpu_count() or 1
    quota = _cpu_quota(cgroup)
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)


def _cpu_quota(cgroup: Path) -> float | None:
    try:
        quota, period = (cgroup / "cpu.max").read_text().split()[:2]
        if quota != "max":
            return int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((cgroup / "cpu" / "cpu.cfs_quota_us").read_text())
        period_us = int((cgroup / "cpu" / "cpu.cfs_period_us").read_text())
        if quota_us > 0 and period_us > 0:
            return quota_us / period_us
    except (OSError, ValueError):
        pass
    return None


def _positive(name: str, environ) -> int | None:
    raw = environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, not {raw!r}")
    return value


@dataclass(frozen=True)
class Plan:
    workers: int  # web processes
    threads: int  # requests each process serves at once
    embedder_threads: int  # onnxruntime intra-op threads per request
    cores: int
    memory: int

    def environment(self) -> dict[str, str]:
        """What the web processes are started with."""
        return {
            EMBEDDER_THREADS_ENV: str(self.embedder_threads),
            THREADS_ENV: str(self.threads),
        }

    def command(self, host: str, port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            str(self.workers),
            # The threads bound what runs at once; requests past them wait in the bridge's
            # queue, in order. With granian's own limit at the thread count, a request now
            # and then waited ~6 s for a slot (measured, docs/decisions/0017).
            "--backpressure",
            str(self.threads * BACKPRESSURE_PER_THREAD),
            "--runtime-threads",
            "1",
            # A connection that has not sent its headers within this many milliseconds is
            # closed: each one waiting holds one of the backpressure's slots.
            "--http1-header-read-timeout",
            str(HEADER_READ_TIMEOUT_MS),
            "--respawn-failed-workers",
            "--workers-kill-timeout",
            str(GRACEFUL_TIMEOUT),
            "--log-level",
            "warning",
            "--no-ws",
            "memoryhub.asgi:application",
        ]

    def describe(self) -> str:
        return (
            f"{self.workers} web process{'es' if self.workers != 1 else ''} x "
            f"{self.threads} requests at once, embedder on {self.embedder_threads} "
            f"thread{'s' if self.embedder_threads != 1 else ''} per request "
            f"({self.cores} cores, {self.memory / 2**30:.1f} GB)"
        )


def plan(*, cores: int, memory: int, environ=os.environ) -> Plan:
    by_memory = int(memory * WEB_MEMORY_SHARE) // WORKER_MEMORY
    workers = _positive(WORKERS_ENV, environ) or max(1, min(cores, by_memory))
    threads = _positive(THREADS_ENV, environ) or DEFAULT_THREADS
    # Cores left over once every in-flight request has one (few workers for lack of memory).
    embedder = _positive(EMBEDDER_THREADS_ENV, environ) or max(1, cores // (workers * threads))
    return Plan(
        workers=workers,
        threads=threads,
        embedder_threads=embedder,
        cores=cores,
        memory=memory,
    )


def heap_settled() -> None:
    """Load what every request uses (the URLconf, and with it the views, serializers and
    pattern tables), then move everything alive to the garbage collector's permanent
    generation (``gc.freeze``): a full collection then walks what requests made, not the
    whole loaded app. Measured in-process over 2,000 single events: full collections took
    ~90 ms each, ~7 ms after the freeze (docs/decisions/0018). Call once the app is loaded."""
    import gc

    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  (imports every view module)
    gc.collect()
    gc.freeze()


def child_command(command: list[str]) -> list[str]:
    """``command`` as ``serve`` starts it: through this module, which asks for a SIGTERM when
    ``serve`` dies and then becomes the command (exec). The web server and the worker run in
    sessions of their own, so that Ctrl-C reaches ``serve`` alone; without this a killed
    ``serve`` would leave them running. (Not ``preexec_fn``: it would run the fork hooks of
    a process with Django loaded in a child that is about to become something else.)"""
    return [sys.executable, "-m", "memoryhub.serving", str(os.getpid()), *command]


if __name__ == "__main__":
    parent, command = int(sys.argv[1]), sys.argv[2:]
    stop_with_parent()
    if os.getppid() != parent:  # it died before the request above: nothing to serve
        sys.exit(0)
    os.execv(command[0], command)  # noqa: S606
