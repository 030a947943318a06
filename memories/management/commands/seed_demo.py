import os

from django.core.management.base import BaseCommand

from memories.management.demo import DEMO_TENANT, DEMO_USERS, seed_demo
from memories.models import Relation, RelationType, Tenant
from memories.services.jobs.runner import job_run
from memories.services.signals import conflicts_found

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
        # The review queue's two kinds of work, as a write and the worker would have left
        # them: the conflicts told as ingest tells them (curation opens their reviews), and
        # the promotion scoring job.
        conflicts_found.send(
            sender=Relation,
            relation_ids=list(
                Relation.objects.filter(
                    tenant__slug=DEMO_TENANT, type=RelationType.CONFLICTS_WITH
                ).values_list("pk", flat=True)
            ),
        )
        job_run("score_promotions", tenant_id=Tenant.objects.get(slug=DEMO_TENANT).pk)
        self.stdout.write(
            f"demo tenant ready: {counts['clients']} clients, {counts['events']} events and "
            f"{counts['memories']} memories added"
        )
        users = ", ".join(name for name, _ in DEMO_USERS)
        self.stdout.write(f"users: {users} (password: {opts['password']})")
