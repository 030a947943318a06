"""Writes that go around ``save()`` (``update()``, ``bulk_update()``) and writes by a
process whose ``Tenant`` predates the switch to encrypted mode: none stores plaintext."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction
from django.db.models import F

from curation.models import ReviewItem
from memories.crypto import blind
from memories.crypto.queryset import SealedQuerySet
from memories.models import Event, Memory, Tenant, WebhookDelivery
from memories.services.tenancy.encryption import sealed_models, tenant_create, tenant_encrypt
from memories.services.write.records import event_record, memory_add
from profiles.models import Profile
from tests.support import factories

pytestmark = pytest.mark.django_db

NOTE = "Thaddeus asked us to keep the shellfish allergy in mind."


def _raw(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _review_item(tenant):
    client = factories.ClientFactory.create(tenant=tenant)
    memory = memory_add(client=client, kind="semantic", content="I like sailing.")
    other = memory_add(client=client, kind="semantic", content="I dislike sailing.")
    return ReviewItem.objects.create(
        tenant=tenant, client=client, memory=memory, other_memory=other, type="conflict"
    )


def _stored_reason(item) -> str:
    return _raw("SELECT reason FROM curation_reviewitem WHERE id = %s", [item.pk])[0][0]


def test_every_model_with_sealed_fields_seals_its_updates():
    assert {model for model, _ in sealed_models()} == {
        Event,
        Memory,
        ReviewItem,
        Profile,
        WebhookDelivery,
    }
    for model, _ in sealed_models():
        # type[Model] declares no `objects`; each of these models does.
        assert isinstance(model.objects.all(), SealedQuerySet), model  # type: ignore[attr-defined]


def test_update_seals_a_plain_value_per_client_only_for_encrypted_tenants():
    vault = tenant_create(slug="vault", encrypted=True)
    plain = tenant_create(slug="plain")
    sealed_item, plain_item = _review_item(vault), _review_item(plain)
    another = _review_item(vault)  # another client: its own key

    count = ReviewItem.objects.filter(tenant__in=[vault, plain]).update(
        reason=NOTE, state=ReviewItem.State.OBSOLETE
    )

    assert count == 3
    assert _stored_reason(plain_item) == NOTE
    for item in (sealed_item, another):
        assert _stored_reason(item).startswith("mh1:")
        assert NOTE not in _stored_reason(item)
        fresh = ReviewItem.objects.get(pk=item.pk)
        assert (fresh.reason, fresh.state) == (NOTE, "obsolete")
    assert _stored_reason(sealed_item) != _stored_reason(another)
    Profile.objects.create(tenant=vault, client=sealed_item.client)
    Profile.objects.filter(client=sealed_item.client).update(static=[{"text": NOTE}])
    (stored,) = _raw("SELECT static::text FROM profiles_profile")[0]
    assert "mh1" in stored and "shellfish" not in stored
    assert Profile.objects.get().static == [{"text": NOTE}]


def test_an_expression_cannot_be_sealed_so_it_is_refused():
    item = _review_item(tenant_create(slug="vault", encrypted=True))
    with pytest.raises(TypeError, match=r"curation\.ReviewItem\.reason is sealed"):
        ReviewItem.objects.filter(pk=item.pk).update(reason=F("summary"))
    assert _stored_reason(item) == ""


def test_bulk_update_seals_and_leaves_the_objects_their_plaintext():
    vault, plain = tenant_create(slug="vault", encrypted=True), tenant_create(slug="plain")
    items = [_review_item(vault), _review_item(plain)]
    for item in items:
        item.reason = NOTE

    ReviewItem.objects.bulk_update(items, ["reason"])

    assert _stored_reason(items[0]).startswith("mh1:")
    assert _stored_reason(items[1]) == NOTE
    assert [item.reason for item in items] == [NOTE, NOTE]
    assert ReviewItem.objects.get(pk=items[0].pk).reason == NOTE


def test_a_stale_tenant_instance_writes_sealed_after_the_switch():
    tenant_create(slug="late")
    stale = Tenant.objects.get(slug="late")
    client = factories.ClientFactory.create(tenant=stale)
    client.tenant = stale  # what a long-running process loaded before the switch
    tenant_encrypt(tenant=Tenant.objects.get(slug="late"))
    assert stale.encrypted is False

    text = "My cousin Ottoline breeds alpacas in Perthshire."
    event, _ = event_record(client=client, content=text, source="chat")
    memory = memory_add(
        client=client, kind="semantic", content=text, attribute="preference:alpacas"
    )

    assert stale.encrypted is True  # refreshed from the database at write time
    (stored_event,) = _raw("SELECT content FROM memories_event WHERE id = %s", [event.pk])[0]
    content, content_hash, vector, attribute = _raw(
        "SELECT content, content_hash, search_vector::text, attribute FROM memories_memory "
        "WHERE id = %s",
        [memory.pk],
    )[0]
    assert stored_event.startswith("mh1:") and content.startswith("mh1:")
    assert content_hash == blind.content_hash(stale, text)
    assert "alpaca" not in vector and "ottolin" not in vector
    assert attribute.startswith("preference:k")
    assert Memory.objects.get(pk=memory.pk).content == text


@pytest.mark.django_db(transaction=True)
def test_the_switch_waits_for_a_plaintext_writer_and_seals_what_it_wrote():
    tenant_create(slug="late")
    client = factories.ClientFactory.create(tenant=Tenant.objects.get(slug="late"))
    written, release, errors = threading.Event(), threading.Event(), []

    def writer():
        try:
            with transaction.atomic():
                event_record(client=client, content="I keep bees in Dorset.", source="chat")
                written.set()
                release.wait(10)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    def switcher():
        try:
            tenant_encrypt(tenant=Tenant.objects.get(slug="late"))
        finally:
            connection.close()

    first = threading.Thread(target=writer)
    first.start()
    assert written.wait(10)
    second = threading.Thread(target=switcher)
    second.start()
    time.sleep(0.5)
    assert second.is_alive()  # the flip waits for the writer's transaction
    release.set()
    first.join(10)
    second.join(10)

    assert errors == []
    assert [c.startswith("mh1:") for (c,) in _raw("SELECT content FROM memories_event")] == [True]
