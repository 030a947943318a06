import pytest
from django.db import IntegrityError, connection, transaction

from curation.models import ReviewItem
from memories.models import Client, Event, Memory, Relation
from memories.text import content_hash
from tests.support import factories

pytestmark = pytest.mark.django_db


def test_event_external_id_is_unique_per_client():
    event = factories.EventFactory.create(external_id="ext-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.EventFactory.create(client=event.client, external_id="ext-1")
    assert Event.objects.filter(external_id="ext-1").count() == 1


def test_same_external_id_is_fine_for_another_client():
    event = factories.EventFactory.create(external_id="ext-1")
    other = factories.EventFactory.create(
        client=factories.ClientFactory.create(tenant=event.tenant), external_id="ext-1"
    )
    assert other.external_id == event.external_id


def test_events_without_external_id_do_not_collide():
    event = factories.EventFactory.create(external_id="")
    factories.EventFactory.create(client=event.client, external_id="")
    assert Event.objects.filter(client=event.client, external_id="").count() == 2


def test_client_reference_is_unique_per_tenant_only():
    client = factories.ClientFactory.create(external_ref="emma")
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.ClientFactory.create(tenant=client.tenant, external_ref="emma")
    factories.ClientFactory.create(external_ref="emma")  # another tenant
    assert Client.objects.filter(external_ref="emma").count() == 2


@pytest.mark.parametrize(
    "model",
    ["Client", "Session", "Event", "Memory", "Relation", "MemoryEmbedding", "ApiKey", "Membership"],
)
def test_tenant_is_required_on_tenant_data(model):
    from memories import models

    field = getattr(models, model)._meta.get_field("tenant")
    assert field.null is False


@pytest.mark.parametrize("model_path", ["curation.models.ReviewItem", "profiles.models.Profile"])
def test_tenant_is_required_on_curation_and_profiles(model_path):
    from django.utils.module_loading import import_string

    assert import_string(model_path)._meta.get_field("tenant").null is False


def test_memory_stores_normalised_hash_and_search_vector():
    memory = factories.MemoryFactory.create(content="  Prefers   EMAIL, not phone. ")
    memory.refresh_from_db()
    assert memory.content == "Prefers EMAIL, not phone."
    assert memory.content_hash == content_hash("prefers email not phone")
    # Every lexeme is scoped by its client: another client's words never match.
    tag = memory.client_id.hex[:12]
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM memories_memory WHERE id = %s", [memory.pk])
        (stored,) = cursor.fetchone()
    assert f"'{tag}:phone'" in stored
    assert "'phone'" not in stored


def test_memory_scores_are_bounded_in_the_database():
    memory = factories.MemoryFactory.create()
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.filter(pk=memory.pk).update(confidence=1.5)


def test_relation_cannot_point_at_itself():
    memory = factories.MemoryFactory.create()
    with pytest.raises(IntegrityError), transaction.atomic():
        Relation.objects.create(tenant=memory.tenant, source=memory, target=memory, type="extends")


def test_only_one_open_review_per_subject():
    item = factories.ReviewItemFactory.create()
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.ReviewItemFactory.create(memory=item.memory, other_memory=item.other_memory)
    item.state, item.decision = ReviewItem.State.DECIDED, ReviewItem.Decision.KEEP_OLD
    item.save()
    factories.ReviewItemFactory.create(memory=item.memory, other_memory=item.other_memory)
    assert ReviewItem.objects.filter(memory=item.memory).count() == 2


def test_decided_review_needs_a_decision():
    item = factories.ReviewItemFactory.create()
    item.state = ReviewItem.State.DECIDED
    with pytest.raises(IntegrityError), transaction.atomic():
        item.save()


def test_as_of_sees_what_memory_said_then():
    from datetime import timedelta

    from django.utils import timezone

    memory = factories.MemoryFactory.create()
    later = timezone.now() + timedelta(days=1)
    Memory.objects.filter(pk=memory.pk).update(status="superseded", invalidated_at=later)
    assert list(Memory.objects.as_of(later - timedelta(hours=1))) == [memory]
    assert list(Memory.objects.as_of(later + timedelta(hours=1))) == []
