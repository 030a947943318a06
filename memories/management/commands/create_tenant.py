from django.core.management.base import BaseCommand, CommandError

from memories.crypto.providers import KeyUnavailable
from memories.models import Tenant, TextSearchLanguage
from memories.services.tenancy.encryption import tenant_create


class Command(BaseCommand):
    help = "Create a tenant; --encrypted keeps no plaintext of it at rest (needs a master key)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default="")
        parser.add_argument("--encrypted", action="store_true")
        parser.add_argument(
            "--language", default=TextSearchLanguage.ENGLISH, choices=TextSearchLanguage.values
        )
        parser.add_argument(
            "--no-vectors", action="store_true", help="store no embeddings for this tenant"
        )

    def handle(self, *args, slug, name, encrypted, language, no_vectors, **opts):
        if Tenant.objects.filter(slug=slug).exists():
            raise CommandError(f"tenant {slug!r} already exists")
        try:
            tenant = tenant_create(
                slug=slug,
                name=name,
                language=language,
                encrypted=encrypted,
                vector_search_enabled=not no_vectors,
            )
        except KeyUnavailable as exc:
            raise CommandError(str(exc)) from exc
        mode = "encrypted" if tenant.encrypted else "plaintext"
        self.stdout.write(f"created tenant {tenant.slug} ({mode}, {tenant.language})")
