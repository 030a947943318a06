from django.core.management.base import BaseCommand

from memories.models import EmbeddingSpace, EventEmbedding, MemoryEmbedding, Tenant
from memories.services.embedding import providers as embeddings
from memories.services.embedding import spaces


class Command(BaseCommand):
    help = (
        "Show the embedding spaces, their vectors, and the tenants still working in a previous "
        "model's space while the reembed job fills the configured one (manage.py run_job "
        "reembed does it now)."
    )

    def handle(self, *args, **options):
        chain = embeddings.get_chain()
        spec = spaces.primary_spec(chain)
        configured = (
            EmbeddingSpace.objects.filter(provider=spec[0], model=spec[1]).first() if spec else None
        )
        self.stdout.write(f"configured model: {'/'.join(spec) if spec else 'none'}")
        for space in EmbeddingSpace.objects.order_by("created_at"):
            vectors = MemoryEmbedding.objects.filter(space=space).count()
            messages = EventEmbedding.objects.filter(space=space).count()
            mark = "  (configured)" if configured and space.pk == configured.pk else ""
            self.stdout.write(f"space {space}: {vectors} vectors, {messages} of messages{mark}")
        moving = Tenant.objects.filter(embedding_space__isnull=False).select_related(
            "embedding_space"
        )
        if not moving:
            self.stdout.write("every tenant works in the configured model's space")
        for tenant in moving:
            left = spaces.missing(tenant.pk, configured).count()
            self.stdout.write(
                f"tenant {tenant.slug}: searches {tenant.embedding_space}; "
                f"{left} memories still to embed with the configured model"
            )
