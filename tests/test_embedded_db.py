"""The embedded PostgreSQL: started by the first process, shared by the next, stopped by
the last one to leave, even when another died without saying goodbye."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memoryhub import embedded_db

ROOT = Path(__file__).resolve().parent.parent

HOLDER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from memoryhub import embedded_db
    server = embedded_db.start(Path(sys.argv[1]))
    status = embedded_db.status(Path(sys.argv[1]))
    print(json.dumps({"pid": status["pid"], "socket": str(server.socket_dir)}), flush=True)
    if sys.argv[2] == "hold":
        sys.stdin.readline()
    """
)


def _spawn(data_dir: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", HOLDER, str(data_dir), mode],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def _started(proc: subprocess.Popen[str]) -> dict:
    assert proc.stdout is not None  # spawned with stdout=PIPE
    line = proc.stdout.readline()
    assert line, "the process did not start the server"
    return json.loads(line)


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "data"
    if (tmp_path / "data" / "postgres").exists():
        embedded_db.stop(tmp_path / "data")


def test_started_shared_and_stopped_by_the_last_process(data_dir):
    first = _spawn(data_dir, "hold")
    started = _started(first)
    assert embedded_db.status(data_dir)["running"] is True

    second = _spawn(data_dir, "exit")
    assert _started(second)["pid"] == started["pid"]  # reused, not a second server
    assert second.wait(timeout=30) == 0
    assert embedded_db.status(data_dir)["running"] is True  # the first still uses it

    first.communicate("\n", timeout=30)
    assert first.returncode == 0
    status = embedded_db.status(data_dir)
    assert status["running"] is False
    assert status["handles"] == []


def test_a_crashed_process_does_not_keep_the_server_alive(data_dir):
    crashed = _spawn(data_dir, "hold")
    started = _started(crashed)
    crashed.send_signal(signal.SIGKILL)
    crashed.wait(timeout=10)

    survivor = _spawn(data_dir, "exit")
    assert _started(survivor)["pid"] == started["pid"]
    assert survivor.wait(timeout=30) == 0
    assert embedded_db.status(data_dir)["running"] is False


def test_listens_on_no_tcp_port(data_dir):
    holder = _spawn(data_dir, "hold")
    _started(holder)
    try:
        import psycopg

        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(host="127.0.0.1", port=5432, user="postgres", connect_timeout=2)
        socket_dir = embedded_db.status(data_dir)["socket_dir"]
        with psycopg.connect(host=socket_dir, user="postgres", dbname="memoryhub") as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        holder.communicate("\n", timeout=30)


GIB = 1024**3


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"memory.max": str(4 * GIB)}, "1024MB"),  # cgroup v2: a 4 GB container
        ({"memory/memory.limit_in_bytes": str(2 * GIB)}, "512MB"),  # cgroup v1
        ({"memory.max": str(256 * 1024**2)}, "128MB"),  # never below PostgreSQL's default
    ],
)
def test_shared_buffers_take_a_quarter_of_the_containers_memory(
    tmp_path, monkeypatch, files, expected
):
    monkeypatch.delenv(embedded_db.SHARED_BUFFERS_ENV, raising=False)
    for name, value in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(value + "\n")
    assert embedded_db.shared_buffers(tmp_path) == expected


def test_without_a_container_limit_shared_buffers_follow_the_machine(tmp_path, monkeypatch):
    import psutil

    monkeypatch.delenv(embedded_db.SHARED_BUFFERS_ENV, raising=False)
    (tmp_path / "memory.max").write_text("max\n")  # cgroup v2 says: no limit
    quarter = psutil.virtual_memory().total // 4 // 1024**2
    assert embedded_db.shared_buffers(tmp_path) == f"{min(max(quarter, 128), 8192)}MB"
    monkeypatch.setenv(embedded_db.SHARED_BUFFERS_ENV, "300MB")
    assert embedded_db.shared_buffers(tmp_path) == "300MB"


def _manage(data_dir: Path, *args: str) -> str:
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data_dir), "PYTHONWARNINGS": "ignore"}
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(  # noqa: S603
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout


def test_embedded_db_status_reports_without_starting_the_server(data_dir):
    assert json.loads(_manage(data_dir, "embedded_db", "status"))["running"] is False
    assert not (data_dir / "postgres").exists()  # nothing started, nothing created

    holder = _spawn(data_dir, "hold")
    started = _started(holder)
    status = json.loads(_manage(data_dir, "embedded_db", "status"))
    assert (status["running"], status["pid"]) == (True, started["pid"])
    assert status["handles"] == [holder.pid]  # the status command did not join
    assert _manage(data_dir, "embedded_db", "stop").strip() == "stopped"
    holder.communicate("\n", timeout=30)
