import os

from django.core.management.base import BaseCommand
from django.utils.module_loading import import_string

from memories.demo import DEMO_TENANT, DEMO_USERS, seed_demo
from memories.models import Relation, RelationType, Tenant
from memories.services.jobs.runner import job_run

DEFAULT_PASSWORD = "memoryhub-demo"  # noqa: S105 (public demo login, printed at start)


class Command(BaseCommand):
    help = "Create (or complete) the demo tenant 'demo' with one user per persona. Idempotent."

    def add_arguments(self, parser):
        parser.add_argument(
            "--password",
            default=os.environ.get("MEMORYHUB_DEMO_PASSWORD", DEFAULT_PASSWORD),
            help="password of every demo user (default: %(default)s)",
        )

    def handle(self, *args, **opts):
        counts = seed_demo(password=opts["password"])
        # The review queue's two kinds of work, as the worker would have found them: the
        # task ingest enqueues after a conflict, by its dotted name (memories imports no
        # curation), and the promotion scoring job.
        conflict_reviews_open = import_string("curation.tasks.conflict_reviews_open")
        conflict_reviews_open(
            list(
                Relation.objects.filter(
                    tenant__slug=DEMO_TENANT, type=RelationType.CONFLICTS_WITH
                ).values_list("pk", flat=True)
            )
        )
        job_run("score_promotions", tenant_id=Tenant.objects.get(slug=DEMO_TENANT).pk)
        self.stdout.write(
            f"demo tenant ready: {counts['clients']} clients, {counts['events']} events and "
            f"{counts['memories']} memories added"
        )
        users = ", ".join(name for name, _ in DEMO_USERS)
        self.stdout.write(f"users: {users} (password: {opts['password']})")
