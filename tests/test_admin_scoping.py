"""Staff who are not superusers see in the admin only what memories.permissions allows:
their tenant, and within it what their role sees. Superusers see every tenant."""

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.test import RequestFactory
from django.urls import reverse
from guardian.shortcuts import assign_perm

from memories.models import EmbeddingSpace, MemoryAccess, Tier
from tests.support import factories

pytestmark = pytest.mark.django_db

APPS = ("memories", "curation", "profiles")


def _everything_of(client, key_user, tenant):
    memory = factories.MemoryFactory.create(client=client)
    event = factories.EventFactory.create(client=client)
    factories.EvidenceFactory.create(memory=memory, event=event)
    factories.RelationFactory.create(
        source=memory, target=factories.MemoryFactory.create(client=client)
    )
    factories.MemoryEmbeddingFactory.create(memory=memory)
    factories.EventEmbeddingFactory.create(event=event)
    factories.SessionFactory.create(client=client)
    factories.ProfileFactory.create(client=client)
    factories.ReviewItemFactory.create(memory=memory)
    factories.JobRunFactory.create(tenant=tenant)
    factories.AuditEntryFactory.create(tenant=tenant)
    factories.api_key_for(key_user, tenant)
    factories.WebhookDeliveryFactory.create(endpoint__tenant=tenant, client=client)
    MemoryAccess.objects.create(memory=memory, client=client)
    assign_perm("memories.advise_client", Group.objects.get_or_create(name="desk")[0], client)
    return memory


@pytest.fixture
def both_tenants(personas):
    acme = _everything_of(personas.client, personas.advisor, personas.tenant)
    carlos = _everything_of(personas.advisor2_client, personas.advisor2, personas.tenant)
    globex = _everything_of(personas.foreign_client, personas.outsider, personas.other_tenant)
    view = Permission.objects.filter(codename__startswith="view_", content_type__app_label__in=APPS)
    for user in (personas.supervisor, personas.advisor, personas.outsider, personas.client_user):
        user.is_staff = True
        user.save()
        user.user_permissions.add(*view)
    return {"acme": acme, "carlos": carlos, "globex": globex}


def _tenant_of(obj):
    for path in ("tenant_id", "memory.tenant_id", "source.tenant_id", "content_object.tenant_id"):
        value = obj
        for part in path.split("."):
            value = getattr(value, part, None)
        if value is not None:
            return value
    return obj.pk  # a Tenant


def _our_admins():
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in APPS
    ]


def _visible(user, model_admin):
    request = RequestFactory().get("/admin/")
    request.user = user
    return list(model_admin.get_queryset(request))


@pytest.mark.parametrize(
    ("model", "model_admin"),
    _our_admins(),
    ids=lambda v: getattr(v, "_meta", None) and v._meta.label,
)
def test_staff_see_only_their_tenant(personas, both_tenants, model, model_admin):
    if model is EmbeddingSpace:  # shared configuration, no tenant's data
        assert len(_visible(personas.supervisor, model_admin)) == EmbeddingSpace.objects.count()
        return
    for user, tenant in (
        (personas.supervisor, personas.tenant),
        (personas.outsider, personas.other_tenant),
    ):
        assert {_tenant_of(obj) for obj in _visible(user, model_admin)} <= {tenant.pk}
    # A superuser sees both tenants wherever both have rows.
    assert {_tenant_of(obj) for obj in _visible(personas.admin, model_admin)} == {
        personas.tenant.pk,
        personas.other_tenant.pk,
    }


def test_roles_narrow_what_staff_see(personas, both_tenants):
    memories = admin.site._registry[type(both_tenants["acme"])]
    supervisor = {m.client.external_ref for m in _visible(personas.supervisor, memories)}
    assert supervisor == {"emma", "carlos"}
    advisor = {m.client.external_ref for m in _visible(personas.advisor, memories)}
    assert advisor == {"emma"}
    # A client's login sees their own live core memories, nothing else.
    assert _visible(personas.client_user, memories) == []
    core = factories.MemoryFactory.create(client=personas.client, tier=Tier.CORE)
    assert _visible(personas.client_user, memories) == [core]


def test_another_tenants_object_is_not_found_in_the_admin(client, personas, both_tenants):
    client.force_login(personas.supervisor)
    url = reverse("admin:memories_memory_change", args=[both_tenants["globex"].pk])
    response = client.get(url)
    assert response.status_code == 302  # the admin's "does not exist", to its index
    assert response["Location"] == reverse("admin:index")
    own = reverse("admin:memories_memory_change", args=[both_tenants["acme"].pk])
    assert client.get(own).status_code == 200


def test_the_tenant_filter_lists_only_visible_tenants(client, personas, both_tenants):
    url = reverse("admin:memories_memory_changelist")
    client.force_login(personas.admin)
    page = client.get(url).content.decode()
    assert "?tenant__id__exact=" in page and "globex" in page  # the superuser's filter
    client.force_login(personas.supervisor)
    page = client.get(url).content.decode()
    assert "globex" not in page  # one tenant in view: no tenant filter at all
    assert str(both_tenants["globex"].pk) not in page
    assert str(both_tenants["acme"].pk) in page


def test_foreign_key_choices_are_scoped(personas, both_tenants):
    sessions = admin.site._registry[type(both_tenants["acme"]).session.field.related_model]
    request = RequestFactory().get("/admin/")
    request.user = personas.advisor
    field = sessions.formfield_for_foreignkey(sessions.model._meta.get_field("client"), request)
    assert field is not None and field.queryset is not None
    assert {c.external_ref for c in field.queryset} == {"emma", "giulia", "marco"}
