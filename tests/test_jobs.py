"""The job runner: a JobRun per run, the run_job command, one run per job and scope."""

import io
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse

from memories.models import JobRun, MemoryAccess
from memories.services.jobs import runner as jobs
from memories.services.jobs.runner import JOBS, job_run
from tests.support import factories
from tests.support.jobs import in_parallel, local_space

pytestmark = pytest.mark.django_db


def test_run_job_prints_the_summary_of_its_run(personas):
    factories.MemoryFactory.create(
        client=personas.client, content="Meeting at 10.", kind="operational"
    )
    out = io.StringIO()
    call_command("run_job", "reembed", "--tenant", "acme", stdout=out)
    run = JobRun.objects.get()
    assert (run.job, run.tenant, run.outcome, run.counts) == (
        "reembed",
        personas.tenant,
        "succeeded",
        {"embedded": 1},
    )
    assert run.finished_at is not None and run.worker
    assert run.duration_ms is not None and run.duration_ms >= 0
    assert out.getvalue() == f"reembed [acme] succeeded in {run.duration_ms} ms: embedded=1\n"


def test_run_job_all_runs_every_job_in_order(personas):
    local_space()
    out = io.StringIO()
    call_command("run_job", "all", stdout=out)
    assert list(JobRun.objects.order_by("pk").values_list("job", "outcome")) == [
        (name, "succeeded") for name in JOBS
    ]
    assert [line.split(" ")[0] for line in out.getvalue().splitlines()] == list(JOBS)


def test_an_unknown_tenant_or_job_is_refused(personas):
    with pytest.raises(CommandError, match="no tenant 'nope'"):
        call_command("run_job", "fusion", "--tenant", "nope", stdout=io.StringIO())
    with pytest.raises(CommandError, match="invalid choice: 'compact'"):
        call_command("run_job", "compact", stdout=io.StringIO())
    assert not JobRun.objects.exists()


def test_a_failing_job_is_logged_as_failed(personas, monkeypatch):
    def broken(*, tenant_id, counts):
        counts.add("done_before_failing", 2)
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(JOBS, "decay", "tests.test_jobs.BROKEN")
    monkeypatch.setattr("tests.test_jobs.BROKEN", broken, raising=False)
    out = io.StringIO()
    with pytest.raises(CommandError, match="failed: decay"):
        call_command("run_job", "decay", stdout=out)
    run = JobRun.objects.get()
    assert (run.outcome, run.counts) == ("failed", {"done_before_failing": 2})
    assert "RuntimeError: disk on fire" in run.error
    assert "decay [all tenants] failed" in out.getvalue()
    assert "RuntimeError: disk on fire" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_the_same_job_twice_at_once_runs_once():
    holding, done = threading.Event(), threading.Event()

    def hold():
        with jobs._exclusive("fusion", None) as alone:
            holding.set()
            done.wait(30)
            return alone

    def second():
        holding.wait(30)
        try:
            return job_run("fusion")
        finally:
            done.set()

    held, run = in_parallel(hold, second)
    assert held is True
    assert (run.outcome, run.counts) == ("skipped", {})
    # Released: the next run runs.
    assert job_run("fusion").outcome == "succeeded"


def test_a_run_whose_worker_died_is_closed_by_the_next(personas):
    from datetime import timedelta

    from django.utils import timezone

    dead = factories.JobRunFactory.create(job="fusion", outcome="running", finished_at=None)
    JobRun.objects.filter(pk=dead.pk).update(started_at=timezone.now() - timedelta(hours=3))
    job_run("fusion")
    dead.refresh_from_db()
    assert (dead.outcome, dead.error) == ("failed", "abandoned: its worker stopped")


class _StuckWorker:
    """A worker thread (its own database session) running ``fusion`` with a service that
    holds until told to go on; ``backend`` is its session's server process."""

    def __init__(self, monkeypatch):
        self.started, self.go_on = threading.Event(), threading.Event()
        self.backend: int | None = None
        self.run: JobRun | None = None
        self.error: BaseException | None = None
        monkeypatch.setitem(JOBS, "fusion", "tests.test_jobs.STUCK")
        monkeypatch.setattr("tests.test_jobs.STUCK", self._service, raising=False)
        self.thread = threading.Thread(target=self._work)
        self.thread.start()
        assert self.started.wait(60)
        monkeypatch.undo()  # the next run in this process runs the real fusion

    def _service(self, *, tenant_id, counts):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]
        self.started.set()
        self.go_on.wait(60)

    def _work(self):
        try:
            self.run = job_run("fusion")
        except BaseException as exc:
            self.error = exc
        finally:
            connection.close()

    def finish(self):
        self.go_on.set()
        self.thread.join(60)


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_worker_was_killed_is_failed_by_the_next_run(monkeypatch):
    """kill -9 of a worker mid-job ends its database session (here the server ends it),
    and the job's lock with it: the next run of the job closes the run it left behind,
    minutes later, not hours."""
    worker = _StuckWorker(monkeypatch)
    dead = JobRun.objects.get(job="fusion")
    assert dead.outcome == "running"
    with connection.cursor() as cursor:
        # With a timeout the call returns once the session has ended, its locks with it
        # (without one, only once the signal is sent: the next run could still find the lock).
        cursor.execute("SELECT pg_terminate_backend(%s, 30000)", [worker.backend])
    try:
        run = job_run("fusion")
        dead.refresh_from_db()
        assert (dead.outcome, dead.error) == ("failed", "abandoned: its worker stopped")
        assert run.outcome == "succeeded"
    finally:
        worker.finish()
    assert worker.error is not None  # its session is gone: it could not finish its run


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_worker_is_alive_is_left_running(monkeypatch):
    worker = _StuckWorker(monkeypatch)
    try:
        run = job_run("fusion")
        assert run.outcome == "skipped"
        live = JobRun.objects.exclude(pk=run.pk).get()
        assert (live.outcome, live.error) == ("running", "")
    finally:
        worker.finish()
    assert worker.error is None and worker.run is not None
    assert worker.run.outcome == "succeeded"
    assert JobRun.objects.get(pk=worker.run.pk).outcome == "succeeded"


def test_runs_are_listed_in_the_admin(client, personas):
    job_run("ttl_sweep", tenant_id=personas.tenant.pk)
    client.force_login(personas.admin)
    page = client.get(reverse("admin:memories_jobrun_changelist"))
    assert page.status_code == 200
    assert b"ttl_sweep" in page.content and b"succeeded" in page.content


def test_run_job_rolls_up_accesses_as_the_schedule_does(personas):
    memory = factories.MemoryFactory.create(client=personas.client)
    foreign = factories.MemoryFactory.create(client=personas.foreign_client)
    for target in (memory, memory, foreign):
        MemoryAccess.objects.create(memory=target, client=target.client)
    out = io.StringIO()
    call_command("run_job", "roll_up_accesses", "--tenant", "acme", stdout=out)
    run = JobRun.objects.get()
    assert (run.job, run.outcome, run.counts) == (
        "roll_up_accesses",
        "succeeded",
        {"accesses": 2, "memories": 1},
    )
    assert out.getvalue() == (
        f"roll_up_accesses [acme] succeeded in {run.duration_ms} ms: accesses=2, memories=1\n"
    )
    memory.refresh_from_db()
    foreign.refresh_from_db()
    assert (memory.usage_count, foreign.usage_count) == (2, 0)  # the other tenant waits
    assert MemoryAccess.objects.filter(rolled_up=False).count() == 1
