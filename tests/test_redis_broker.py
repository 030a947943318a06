"""Scale-out: a task goes through django-q2's Redis broker to a real worker process.

django-q2 reads its broker from the settings at import, and the suite runs tasks inline,
so the enqueuing process and the worker are subprocesses with ``REDIS_URL`` in their own
environment, pointed at this test's database. Runs where MEMORYHUB_TEST_REDIS_URL names
a Redis server (``.ci/run`` starts one); skipped elsewhere.
"""

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from memories.models import JobRun, Memory
from tests.support import factories
from tests.support.live import database_url, stop_groups

REDIS_URL = os.environ.get("MEMORYHUB_TEST_REDIS_URL", "")
ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(not REDIS_URL, reason="MEMORYHUB_TEST_REDIS_URL is not set"),
    pytest.mark.django_db(transaction=True),
]


def _env() -> dict:
    return {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
        "MEMORYHUB_QUEUE_SYNC": "false",
        "MEMORYHUB_WORKERS": "1",
        # DATABASE_URL makes it a deployment, which needs a key shared by its processes.
        "MEMORYHUB_SECRET_KEY": "redis-broker-test-only",
        "PYTHONWARNINGS": "ignore",
    }


def _manage(*args: str, timeout: float = 120) -> str:
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_job_goes_through_redis_to_a_real_worker(personas, tmp_path):
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    memory = factories.MemoryFactory.create(
        client=personas.client,
        content="Deploy job 17 is running.",
        kind="operational",
        expires_at=timezone.now() - timedelta(hours=1),
    )
    log = (tmp_path / "qcluster.log").open("w")
    worker = subprocess.Popen(  # noqa: S603
        [sys.executable, str(ROOT / "manage.py"), "worker"],
        env=_env(),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        broker = _manage(
            "shell",
            "--no-imports",
            "-c",
            "from django_q.brokers import get_broker; from django_q.tasks import async_task; "
            "print(type(get_broker()).__name__); "
            "print(async_task('memories.tasks.ttl_sweep', task_name='through-redis'))",
        ).splitlines()
        assert broker[0] == "Redis"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            run = JobRun.objects.filter(job="ttl_sweep").first()
            if run is not None and run.outcome != "running":
                break
            time.sleep(0.5)
        else:
            pytest.fail(
                "the worker did not run the task:\n" + (tmp_path / "qcluster.log").read_text()
            )
        assert (run.outcome, run.counts) == ("succeeded", {"past_expires_at": 1})
        assert Memory.objects.get(pk=memory.pk).status == "expired"
        # The run's row is finished before the task returns: wait for the worker to save
        # the task's result before stopping it, or the stop can come first.
        from django_q.models import Task

        while time.monotonic() < deadline and not Task.objects.filter(name="through-redis"):
            time.sleep(0.5)
    finally:
        stop_groups([worker], timeout=30)
        log.close()
    # The worker saved the task's result (django-q2 keeps results in the database).
    task = Task.objects.get(name="through-redis")
    assert task.success is True
    assert task.result.startswith("ttl_sweep [all tenants] succeeded")
