"""Scale-out for real: two web processes and two django-q2 workers on one PostgreSQL (this
test's database), under a concurrent load of writes and jobs, on the Redis broker and on
the ORM broker. Nothing is lost, no job runs twice, no memory is stored twice.

The web processes are granian serving the ASGI app (what ``serve`` runs), the workers
``manage.py worker`` (django-q2's qcluster); all of them are subprocesses with the
deployment's environment (``DATABASE_URL``, ``REDIS_URL``). The Redis half runs where
MEMORYHUB_TEST_REDIS_URL names a server (``tools/test.sh`` starts one)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db.models import Count

from memories.models import Client, Event, JobRun, Memory
from tests.support import factories
from tests.support.live import database_url, free_port, stop_groups

REDIS_URL = os.environ.get("MEMORYHUB_TEST_REDIS_URL", "")
ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 4
WRITERS = 4
EVENTS_PER_WRITER = 8
JOBS = 4
DEADLINE = 90.0

pytestmark = pytest.mark.django_db(transaction=True)

STATEMENTS = [
    "I prefer to be contacted by email.",
    "I live in Bristol.",
    "I work at Lloyds Bank.",
    "My daughter Emma starts university next year.",
    "I don't like high-risk investments.",
    "We're planning to retire in ten years.",
    "I can't travel before March.",
    "I have decided not to invest in crypto.",
]


def _env(broker: str) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
        "MEMORYHUB_QUEUE_SYNC": "false",
        "MEMORYHUB_WORKERS": "1",
        "MEMORYHUB_SECRET_KEY": "scale-out-test-only",
        "MEMORYHUB_HTTPS": "false",
        "MEMORYHUB_THROTTLE_READ": "off",
        "MEMORYHUB_THROTTLE_WRITE": "off",
        "MEMORYHUB_LOCAL_EMBEDDER_THREADS": "1",
        "MEMORYHUB_ACCESS_LOG": "false",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("REDIS_URL", None)
    if broker == "redis":
        env["REDIS_URL"] = REDIS_URL
    return env


def _post(port: int, path: str, body: dict, key: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(
            "POST",
            path,
            body=json.dumps(body),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def _ready(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/v1/health/ready")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


@pytest.mark.parametrize(
    "broker",
    [
        pytest.param(
            "redis",
            marks=pytest.mark.skipif(not REDIS_URL, reason="MEMORYHUB_TEST_REDIS_URL is not set"),
        ),
        "orm",
    ],
)
def test_two_web_processes_and_two_workers_lose_nothing_and_do_nothing_twice(
    broker, personas, tmp_path
):
    if broker == "redis":
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()
    _, key = factories.api_key_for(personas.supervisor, personas.tenant)
    env = _env(broker)
    ports = [free_port(), free_port()]
    processes = []
    logs = []
    for n, port in enumerate(ports):
        log = (tmp_path / f"web{n}.log").open("w")
        logs.append(log)
        processes.append(
            subprocess.Popen(  # noqa: S603
                [
                    sys.executable, "-m", "granian", "--interface", "asgi", "--port", str(port),
                    "--workers", "1", "--backpressure", "32", "--log-level", "warning",
                    "memoryhub.asgi:application",
                ],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        )  # fmt: skip
    for n in range(2):
        log = (tmp_path / f"worker{n}.log").open("w")
        logs.append(log)
        processes.append(
            subprocess.Popen(  # noqa: S603
                [sys.executable, str(ROOT / "manage.py"), "worker"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        )  # fmt: skip
    started = time.monotonic()
    try:
        while not all(_ready(port) for port in ports):
            assert all(p.poll() is None for p in processes), _logs(tmp_path)
            assert time.monotonic() - started < DEADLINE, "not ready:\n" + _logs(tmp_path)
            time.sleep(0.5)

        # Writers on both web processes: every writer says the same things about the same
        # clients, each event under an id of its own, so most statements arrive several
        # times at once through different processes.
        statuses: list[int] = []
        posted: list[str] = []
        lock = threading.Lock()

        def writer(w: int) -> None:
            for i in range(EVENTS_PER_WRITER):
                external_id = f"w{w}-e{i}"
                body = {
                    "client": f"client-{i % CLIENTS}",
                    "session": f"session-{w}",
                    "content": STATEMENTS[i % len(STATEMENTS)],
                    "external_id": external_id,
                }
                status = _post(ports[(w + i) % 2], "/api/v1/events/", body, key)
                with lock:
                    statuses.append(status)
                    posted.append(external_id)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
        for thread in threads:
            thread.start()
        # Jobs queued meanwhile, from another process, for the two workers to share.
        task_ids = _enqueue_jobs(env)
        for thread in threads:
            thread.join(timeout=DEADLINE)
        assert statuses == [201] * (WRITERS * EVENTS_PER_WRITER)

        # Every job and every follow-up done: no stale profile left, every queued job run.
        while (
            Client.objects.filter(profile_stale_since__isnull=False).exists()
            or JobRun.objects.filter(job="ttl_sweep").exclude(outcome="running").count() < JOBS
        ):
            stale = Client.objects.filter(profile_stale_since__isnull=False)
            assert time.monotonic() - started < 2 * DEADLINE, (
                f"not drained: stale {list(stale.values_list('external_ref', flat=True))}, "
                f"runs {list(JobRun.objects.values_list('job', 'outcome'))}\n" + _logs(tmp_path)
            )
            time.sleep(0.5)
    finally:
        stop_groups(processes)
        for log in logs:
            log.close()

    # No event lost: every one posted is stored, once.
    stored = sorted(Event.objects.values_list("external_id", flat=True))
    assert stored == sorted(posted)
    # No memory stored twice: one live memory per client and statement.
    duplicated = (
        Memory.objects.current()
        .values("client_id", "content_hash")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
    assert list(duplicated) == []
    # No job done twice: each queued job ran once, and so did every task.
    from django_q.models import Task

    assert JobRun.objects.filter(job="ttl_sweep").count() == JOBS
    jobs = Task.objects.filter(id__in=task_ids)
    assert sorted((t.id, t.success, t.attempt_count) for t in jobs) == sorted(
        (task_id, True, 1) for task_id in task_ids
    )
    assert Task.objects.filter(attempt_count__gt=1).count() == 0


def _enqueue_jobs(env: dict) -> list[str]:
    done = subprocess.run(  # noqa: S603
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "--no-imports",
            "-c",
            "from django_q.tasks import async_task; "
            f"print(' '.join(async_task('memories.tasks.ttl_sweep') for _ in range({JOBS})))",
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def _logs(tmp_path: Path) -> str:
    return "\n".join(
        f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(tmp_path.glob("*.log"))
    )
