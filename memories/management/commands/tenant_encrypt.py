from django.core.management.base import BaseCommand, CommandError

from memories.crypto.providers import KeyUnavailable
from memories.models import Tenant
from memories.services.tenancy.encryption import tenant_encrypt


class Command(BaseCommand):
    help = (
        "Switch a tenant to encrypted mode and seal what it already holds, in place. "
        "Resumable: run it again after an interruption."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args, slug, batch_size, **opts):
        tenant = Tenant.objects.filter(slug=slug).first()
        if tenant is None:
            raise CommandError(f"no tenant {slug!r}")
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        try:
            counts = tenant_encrypt(
                tenant=tenant,
                batch_size=batch_size,
                progress=lambda label, n: self.stderr.write(f"{label}: {n} sealed"),
            )
        except KeyUnavailable as exc:
            raise CommandError(str(exc)) from exc
        sealed = ", ".join(f"{label} {n}" for label, n in counts.items()) or "nothing left"
        self.stdout.write(f"tenant {slug} is encrypted; sealed now: {sealed}")
