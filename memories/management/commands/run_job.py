import logging

from django.core.management.base import BaseCommand, CommandError

from memories.models import JobRun, Tenant
from memories.services.jobs.runner import JOBS, job_run, job_summary, jobs_run_all


class Command(BaseCommand):
    help = "Run one background job now (or all of them, in order) and print its JobRun."

    def add_arguments(self, parser):
        parser.add_argument("name", choices=[*JOBS, "all"])
        parser.add_argument("--tenant", metavar="SLUG", help="only this tenant's data")

    def handle(self, *args, name, tenant=None, **opts):
        # The summaries go to stdout below; the runner's own log line would repeat them.
        logging.getLogger("memories.services.jobs.runner").setLevel(logging.WARNING)
        tenant_id = None
        if tenant:
            found = Tenant.objects.filter(slug=tenant).values_list("pk", flat=True).first()
            if found is None:
                raise CommandError(f"no tenant {tenant!r}")
            tenant_id = found
        if name == "all":
            runs = jobs_run_all(tenant_id=tenant_id)
        else:
            try:
                runs = [job_run(name, tenant_id=tenant_id)]
            except Exception as exc:
                if not hasattr(exc, "job_run"):
                    raise
                runs = [exc.job_run]
        for run in runs:
            self.stdout.write(job_summary(run))
        failed = [run.job for run in runs if run.outcome == JobRun.Outcome.FAILED]
        if failed:
            raise CommandError(f"failed: {', '.join(failed)}")
