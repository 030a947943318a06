"""Background jobs: one registry, one run log, and the claims that make them safe to run
twice or at the same time.

Every job is a service ``fn(*, tenant_id, counts) -> None`` that works in batches, one
transaction each, and adds what it did to ``counts``. ``job_run`` wraps it in a JobRun row
(counts, duration, outcome) written outside the job's transactions, so a failure is
logged with the counts of the batches that did commit. A run of the same job over the
same scope that is already going on makes the new run a ``skipped`` no-op (a session
advisory lock); runs over overlapping scopes (one tenant, all tenants) are kept apart by
the jobs' own row or client claims.

``curation`` and ``profiles`` add their jobs with ``job_register`` from their
``AppConfig.ready``: the link is a call in the app that depends on ``memories``, and
``memories`` imports neither.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback
from datetime import time as clock
from datetime import timedelta

from django.db import connection
from django.db.models import Q
from django.utils import timezone
from django.utils.module_loading import import_string

from memories.models import JobRun

logger = logging.getLogger(__name__)

# name → service, in the order ``all`` runs them: vectors first (fusion and consolidation
# compare them), reads folded into counters (scoring and tiers count them), status changes
# before scoring, scoring before tiers and rankings, the profiles last (they show the
# outcome of everything above).
# The other apps' jobs take their place here when they register (curation's promotion
# scoring after the principles, profiles' refresh after the ranking).
JOBS: dict[str, str] = {
    "reembed": "memories.services.embedding.reembed.reembed_job",
    "roll_up_accesses": "memories.services.jobs.accesses.accesses_roll_up_job",
    "ttl_sweep": "memories.services.jobs.forgetting.ttl_sweep",
    "decay": "memories.services.jobs.forgetting.decay_sweep",
    "fusion": "memories.services.jobs.fusion.fusion_run",
    "summarize_episodes": "memories.services.jobs.summaries.episodes_summarize",
    "consolidate_episodes": "memories.services.jobs.consolidation.episodes_consolidate",
    "extract_principles": "memories.services.jobs.principles.principles_extract",
    "tiers": "memories.services.jobs.tiers.tiers_move",
    "refresh_ranking": "memories.services.jobs.ranking.ranking_refresh",
    "webhooks": "memories.services.webhooks.delivery.webhooks_send_due",
}
# name → (django-q2 task, minutes between runs, first run at this UTC time or None for now)
# of the registered jobs; ``setup_schedules`` declares them beside memories' own.
REGISTERED_SCHEDULES: dict[str, tuple[str, int, clock | None]] = {}
# A run of another scope still "running" after this long died with its worker (django-q2's
# timeout is 600 s); one of the same scope is known dead as soon as its lock is free.
ABANDONED_AFTER = timedelta(hours=2)


def job_register(
    name: str, service: str, *, after: str, task: str, minutes: int, at: clock | None = None
) -> None:
    """Add another app's job: ``service`` (a dotted name in that app) runs after job
    ``after`` in ``all``, and django-q2 runs ``task`` every ``minutes`` (first at ``at``,
    UTC). Called from the app's ``AppConfig.ready``; registering again replaces it."""
    if after not in JOBS:
        raise KeyError(f"job {name!r} registered after unknown job {after!r}")
    order = [(n, s) for n, s in JOBS.items() if n != name]
    at_index = next(i for i, (n, _) in enumerate(order) if n == after) + 1
    order.insert(at_index, (name, service))
    JOBS.clear()
    JOBS.update(order)
    REGISTERED_SCHEDULES[name] = (task, minutes, at)


class JobCounts(dict):
    """What a run did, by name: ``counts.add("merged", 3)``."""

    def add(self, name: str, amount: int = 1) -> None:
        if amount:
            self[name] = self.get(name, 0) + amount


def job_run(name: str, *, tenant_id=None) -> JobRun:
    """Run job ``name`` now (for one tenant, or all) and return its JobRun. A failure is
    logged on the row and raised again, so django-q2 records it too."""
    if name not in JOBS:
        raise KeyError(f"unknown job {name!r}; the jobs are {', '.join(JOBS)}")
    service = import_string(JOBS[name])
    counts = JobCounts()
    started = time.monotonic()
    with _exclusive(name, tenant_id) as alone:
        # The row is written under the lock, and finished before it is released: a run of
        # this scope still "running" now is one whose worker let go of the lock without
        # finishing, which only a dead session does.
        outcome = JobRun.Outcome.RUNNING if alone else JobRun.Outcome.SKIPPED
        run = JobRun.objects.create(
            job=name, tenant_id=tenant_id, worker=_worker(), outcome=outcome
        )
        if not alone:
            return _finish(run, started, JobRun.Outcome.SKIPPED, counts)
        _close_abandoned(name, tenant_id, current=run)
        try:
            service(tenant_id=tenant_id, counts=counts)
        except Exception as exc:
            _finish(run, started, JobRun.Outcome.FAILED, counts, traceback.format_exc())
            exc.job_run = run  # type: ignore[attr-defined]  # for callers that report it
            raise
        return _finish(run, started, JobRun.Outcome.SUCCEEDED, counts)


def jobs_run_all(*, tenant_id=None) -> list[JobRun]:
    """Every job once, in order; one failing does not stop the others."""
    runs = []
    for name in JOBS:
        try:
            runs.append(job_run(name, tenant_id=tenant_id))
        except Exception as exc:
            logger.exception("job %s failed", name)
            runs.append(exc.job_run)  # type: ignore[attr-defined]
    return runs


def job_summary(run: JobRun) -> str:
    scope = run.tenant.slug if run.tenant is not None else "all tenants"
    counts = ", ".join(f"{key}={value}" for key, value in sorted(run.counts.items())) or "nothing"
    line = f"{run.job} [{scope}] {run.outcome} in {run.duration_ms} ms: {counts}"
    if run.error:
        line += "\n  " + run.error.strip().splitlines()[-1]
    return line


def _finish(run: JobRun, started: float, outcome: str, counts: dict, error: str = "") -> JobRun:
    run.finished_at = timezone.now()
    run.duration_ms = round((time.monotonic() - started) * 1000)
    run.outcome, run.counts, run.error = outcome, dict(counts), error
    run.save(update_fields=["finished_at", "duration_ms", "outcome", "counts", "error"])
    logger.info("%s", job_summary(run))
    return run


def _close_abandoned(name: str, tenant_id, *, current: JobRun) -> None:
    """Mark as failed the runs of ``name`` whose worker is gone: every other run of this
    scope still "running" (we hold the scope's lock, which a live run would hold), and a
    run of another scope left running past ``ABANDONED_AFTER``."""
    same_scope = Q(tenant_id=tenant_id) if tenant_id is not None else Q(tenant__isnull=True)
    stale = Q(started_at__lt=timezone.now() - ABANDONED_AFTER)
    JobRun.objects.filter(same_scope | stale, job=name, outcome=JobRun.Outcome.RUNNING).exclude(
        pk=current.pk
    ).update(outcome=JobRun.Outcome.FAILED, error="abandoned: its worker stopped")


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


class _exclusive:
    """A session advisory lock on (job, scope), released on exit whatever happens."""

    def __init__(self, name: str, tenant_id):
        self.key = f"memoryhub-job:{name}:{tenant_id or '*'}"

    def __enter__(self) -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [self.key])
            self.held = bool(cursor.fetchone()[0])
        return self.held

    def __exit__(self, *exc) -> None:
        if self.held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [self.key])
