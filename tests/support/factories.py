"""factory_boy factories for every model. Memories go through the real persistence
service, so their hash and full-text vector are what production writes."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import timezone

from curation.models import ReviewItem
from memories import models
from memories.services.tenancy import api_keys
from memories.services.write import records
from profiles.models import Profile


class TenantFactory(factory.django.DjangoModelFactory[models.Tenant]):
    class Meta:
        model = models.Tenant
        django_get_or_create = ["slug"]

    slug = factory.Sequence(lambda n: f"tenant-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.replace("-", " ").title())
    language = "english"


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests")


class MembershipFactory(factory.django.DjangoModelFactory[models.Membership]):
    class Meta:
        model = models.Membership

    tenant = factory.SubFactory(TenantFactory)
    user = factory.SubFactory(UserFactory)
    role = models.Role.ADVISOR


class ClientFactory(factory.django.DjangoModelFactory[models.Client]):
    class Meta:
        model = models.Client

    tenant = factory.SubFactory(TenantFactory)
    external_ref = factory.Sequence(lambda n: f"client-{n}")
    display_name = factory.Faker("name")


class SessionFactory(factory.django.DjangoModelFactory[models.Session]):
    class Meta:
        model = models.Session

    client = factory.SubFactory(ClientFactory)
    tenant = factory.SelfAttribute("client.tenant")
    external_ref = factory.Sequence(lambda n: f"session-{n}")


class EventFactory(factory.django.DjangoModelFactory[models.Event]):
    class Meta:
        model = models.Event

    client = factory.SubFactory(ClientFactory)
    tenant = factory.SelfAttribute("client.tenant")
    source = models.EventSource.CHAT
    speaker = "client"
    content = factory.Faker("sentence")
    external_id = factory.Sequence(lambda n: f"evt-{n}")


class MemoryFactory(factory.django.DjangoModelFactory[models.Memory]):
    class Meta:
        model = models.Memory

    client = factory.SubFactory(ClientFactory)
    kind = models.Kind.SEMANTIC
    category = models.Category.FACT
    content = factory.Faker("sentence")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        state = {k: kwargs.pop(k) for k in ("status", "usage_count", "dup_count") if k in kwargs}
        memory = records.memory_add(**kwargs)
        if state:
            models.Memory.objects.filter(pk=memory.pk).update(**state)
            memory.refresh_from_db()
        return memory


class EvidenceFactory(factory.django.DjangoModelFactory[models.Evidence]):
    class Meta:
        model = models.Evidence

    memory = factory.SubFactory(MemoryFactory)
    event = factory.SubFactory(EventFactory, client=factory.SelfAttribute("..memory.client"))


class RelationFactory(factory.django.DjangoModelFactory[models.Relation]):
    class Meta:
        model = models.Relation

    source = factory.SubFactory(MemoryFactory)
    target = factory.SubFactory(MemoryFactory, client=factory.SelfAttribute("..source.client"))
    tenant = factory.SelfAttribute("source.tenant")
    type = models.RelationType.EXTENDS


class EmbeddingSpaceFactory(factory.django.DjangoModelFactory[models.EmbeddingSpace]):
    class Meta:
        model = models.EmbeddingSpace
        django_get_or_create = ["provider", "model"]

    provider = "test"
    model = factory.Sequence(lambda n: f"model-{n}")
    dimension = 3


class MemoryEmbeddingFactory(factory.django.DjangoModelFactory[models.MemoryEmbedding]):
    class Meta:
        model = models.MemoryEmbedding

    memory = factory.SubFactory(MemoryFactory)
    space = factory.SubFactory(EmbeddingSpaceFactory)
    tenant = factory.SelfAttribute("memory.tenant")
    client = factory.SelfAttribute("memory.client")
    vector = factory.LazyAttribute(lambda o: [1.0] + [0.0] * (o.space.dimension - 1))


class EventEmbeddingFactory(factory.django.DjangoModelFactory[models.EventEmbedding]):
    class Meta:
        model = models.EventEmbedding

    event = factory.SubFactory(EventFactory)
    space = factory.SubFactory(EmbeddingSpaceFactory)
    tenant = factory.SelfAttribute("event.tenant")
    client = factory.SelfAttribute("event.client")
    vector = factory.LazyAttribute(lambda o: [1.0] + [0.0] * (o.space.dimension - 1))


class ProfileFactory(factory.django.DjangoModelFactory[Profile]):
    class Meta:
        model = Profile

    client = factory.SubFactory(ClientFactory)
    tenant = factory.SelfAttribute("client.tenant")


class ReviewItemFactory(factory.django.DjangoModelFactory[ReviewItem]):
    class Meta:
        model = ReviewItem

    memory = factory.SubFactory(MemoryFactory)
    other_memory = factory.SubFactory(
        MemoryFactory, client=factory.SelfAttribute("..memory.client")
    )
    client = factory.SelfAttribute("memory.client")
    tenant = factory.SelfAttribute("memory.tenant")
    type = ReviewItem.Type.CONFLICT


class JobRunFactory(factory.django.DjangoModelFactory[models.JobRun]):
    class Meta:
        model = models.JobRun

    job = "ttl_sweep"
    outcome = models.JobRun.Outcome.SUCCEEDED
    finished_at = factory.LazyFunction(timezone.now)
    duration_ms = 12
    counts = factory.LazyFunction(lambda: {"expired": 0})


class AuditEntryFactory(factory.django.DjangoModelFactory[models.AuditEntry]):
    class Meta:
        model = models.AuditEntry

    tenant = factory.SubFactory(TenantFactory)
    actor_label = "system"
    action = "memory.supersede"
    object_type = "memory"
    object_id = factory.Faker("uuid4")


class WebhookEndpointFactory(factory.django.DjangoModelFactory[models.WebhookEndpoint]):
    class Meta:
        model = models.WebhookEndpoint

    tenant = factory.SubFactory(TenantFactory)
    url = "https://hooks.example.com/memoryhub"
    events = factory.LazyFunction(lambda: list(models.WebhookEvent.values))


class WebhookDeliveryFactory(factory.django.DjangoModelFactory[models.WebhookDelivery]):
    class Meta:
        model = models.WebhookDelivery

    endpoint = factory.SubFactory(WebhookEndpointFactory)
    tenant = factory.SelfAttribute("endpoint.tenant")
    event = models.WebhookEvent.MEMORY_ADDED
    payload = factory.LazyFunction(lambda: {"client": "emma", "memories": []})


def api_key_for(user, tenant) -> tuple[models.ApiKey, str]:
    """A key through the real service (the only place that knows the format)."""
    return api_keys.api_key_create(tenant=tenant, user=user)
