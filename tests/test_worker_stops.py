"""``manage.py worker`` stops when a process manager signals its whole process group (as
systemd does by default, and a terminal's Ctrl-C), where django-q2's ``qcluster`` waits for
ever; and a worker killed outright leaves none of its processes behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.live import subprocess_env

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db(transaction=True)


def _descendants(pid: int) -> set[int]:
    """Every living process under ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


@pytest.fixture
def worker(tmp_path):
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, str(ROOT / "manage.py"), "worker"],
        env=subprocess_env(
            DJANGO_SETTINGS_MODULE="memoryhub.settings",
            MEMORYHUB_QUEUE_SYNC="false",
            MEMORYHUB_WORKERS="2",
            MEMORYHUB_SECRET_KEY="worker-stop-test-only",
        ),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    # Running: the cluster, its sentinel, two workers, the monitor and the pusher.
    while len(_alive(_descendants(process.pid))) < 5:
        assert process.poll() is None, (tmp_path / "worker.log").read_text()
        assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
        time.sleep(0.2)
    started = _descendants(process.pid)
    yield process
    # Whatever is left, orphans included (they would take this database's tasks).
    for pid in _alive(started | _descendants(process.pid)) | {process.pid}:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait(timeout=10)
    log.close()


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    """Those of ``pids`` still alive after ``seconds`` (a hang, not a speed: the stop takes
    about a second)."""
    deadline = time.monotonic() + seconds
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _alive(pids)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_whole_group_stops_every_process(worker, signum):
    processes = _descendants(worker.pid) | {worker.pid}
    os.killpg(worker.pid, signum)
    assert _gone_within(processes, 30) == set()
    assert worker.wait(timeout=5) is not None


def test_a_worker_killed_outright_leaves_no_process_behind(worker):
    processes = _descendants(worker.pid)
    os.kill(worker.pid, signal.SIGKILL)
    assert _gone_within(processes, 30) == set()
