from django.core.management.base import BaseCommand, CommandError

from memories.crypto.providers import KeyUnavailable
from memories.models import Tenant
from memories.services.write.text_reindex import memories_text_reindex


class Command(BaseCommand):
    help = (
        "Detect every memory's language again and rebuild its full-text index in it, in "
        "batches (one transaction each; writers go on). Migration 0016 does it once; run it "
        "for encrypted tenants the migration had no master key for, or after an upgrade "
        "during which older processes kept writing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="this tenant's slug only (default: every tenant)")
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args, tenant, batch_size, **opts):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        tenants = Tenant.objects.order_by("slug")
        if tenant is not None:
            tenants = tenants.filter(slug=tenant)
            if not tenants.exists():
                raise CommandError(f"no tenant {tenant!r}")
        try:
            done = memories_text_reindex(
                tenants=tenants,
                batch_size=batch_size,
                progress=lambda t, n: self.stderr.write(f"{t.slug}: {n} memories re-indexed"),
            )
        except KeyUnavailable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{done} memories re-indexed in their own language")
