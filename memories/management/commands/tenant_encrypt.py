from django.core.management.base import BaseCommand, CommandError

from memories.crypto.providers import KeyUnavailable
from memories.models import Tenant
from memories.services.tenancy.encryption import sealed_tables_rewrite, tenant_encrypt


class Command(BaseCommand):
    help = (
        "Switch a tenant to encrypted mode and seal what it already holds, in place, then "
        "rewrite the tables that held its words (VACUUM FULL: each table is locked while it "
        "is copied; --no-rewrite skips it). Resumable: run it again after an interruption."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--batch-size", type=int, default=500)
        parser.add_argument(
            "--no-rewrite",
            action="store_true",
            help="seal only; the old plaintext stays in the tables' files until they are "
            "rewritten (run the command again without it, e.g. in a quiet hour)",
        )

    def handle(self, *args, slug, batch_size, no_rewrite, **opts):
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
        if no_rewrite:
            self.stdout.write(
                "tables not rewritten (--no-rewrite): their files still hold the old plaintext rows"
            )
            return
        not_done = sealed_tables_rewrite(
            progress=lambda table: self.stderr.write(f"{table}: rewritten")
        )
        for line in not_done:
            self.stdout.write(f"warning: {line}")
        if not_done:
            self.stdout.write("tables rewritten, but for the warnings above")
        else:
            self.stdout.write("tables rewritten: no old row of them is left in their files")
