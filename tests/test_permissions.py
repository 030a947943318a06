"""memories.permissions: the persona rules of DESIGN "Who uses it", question by question.
(The request-level proof is tests/test_permission_matrix.py.)"""

import uuid

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.http import Http404
from guardian.shortcuts import assign_perm

from curation.models import ReviewItem
from memories import permissions
from memories.models import AuditEntry, Event, Role, Status, Tier
from memories.services.tenancy.members import client_assign_advisor, client_unassign_advisor
from tests.support import factories

pytestmark = pytest.mark.django_db

EVERYONE = ("advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir")


def _who(personas, test):
    return {name for name in EVERYONE if test(getattr(personas, name))}


def test_who_sees_which_client(personas):
    def seers(client):
        return _who(personas, lambda u: permissions.can_browse_client(u, client))

    assert seers(personas.client) == {"advisor", "supervisor", "admin", "client_user"}
    assert seers(personas.parent) == {"advisor", "supervisor", "admin"}  # never the heir
    assert seers(personas.heir_client) == {"advisor", "supervisor", "admin", "heir"}
    assert seers(personas.advisor2_client) == {"advisor2", "supervisor", "admin"}
    assert seers(personas.foreign_client) == {"outsider", "admin"}


def test_who_sees_which_memory(personas):
    core = factories.MemoryFactory.create(client=personas.client, tier=Tier.CORE)
    recall = factories.MemoryFactory.create(client=personas.client, tier=Tier.RECALL)
    forgotten = factories.MemoryFactory.create(
        client=personas.client, tier=Tier.CORE, status=Status.DELETED
    )
    parent_core = factories.MemoryFactory.create(client=personas.parent, tier=Tier.CORE)
    heir_core = factories.MemoryFactory.create(client=personas.heir_client, tier=Tier.CORE)

    def readers(memory):
        return _who(personas, lambda u: permissions.can_read_memory(u, memory))

    staff = {"advisor", "supervisor", "admin"}
    assert readers(core) == staff | {"client_user"}
    assert readers(recall) == staff
    assert readers(forgotten) == staff  # history for staff; gone for the client
    assert readers(parent_core) == staff
    assert readers(heir_core) == staff | {"heir"}


def test_who_may_act(personas):
    memory = factories.MemoryFactory.create(client=personas.client, tier=Tier.CORE)
    item = factories.ReviewItemFactory.create(memory=memory)
    tenant = personas.tenant

    assert _who(personas, lambda u: permissions.can_write_memory(u, memory)) == {
        "advisor",
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_override_tier(u, memory)) == {
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_override_tier(u, tenant)) == {
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_decide_review(u, item)) == {
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_decide_review(u, tenant)) == {
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_view_review_queue(u, tenant)) == {
        "advisor",
        "advisor2",
        "supervisor",
        "admin",
    }
    for question in (
        permissions.can_run_evaluation,
        permissions.can_manage_api_keys,
        permissions.can_view_operations,
    ):
        assert _who(personas, lambda u, q=question: q(u, tenant)) == {"supervisor", "admin"}
    assert _who(personas, lambda u: permissions.can_erase_client(u, personas.client)) == {
        "supervisor",
        "admin",
    }
    creators = {"supervisor", "admin"}
    assert _who(personas, lambda u: permissions.can_create_client(u, tenant)) == creators
    tenant.advisors_create_clients = True
    assert _who(personas, lambda u: permissions.can_create_client(u, tenant)) == {
        "advisor",
        "advisor2",
        *creators,
    }
    tenant.advisors_create_clients = False
    # Nobody acts in a tenant they do not belong to, superusers aside.
    other = personas.other_tenant
    assert _who(personas, lambda u: permissions.can_decide_review(u, other)) == {"admin"}
    assert _who(personas, lambda u: permissions.can_see_tenant(u, other)) == {
        "outsider",
        "admin",
    }


def test_an_advisor_keeps_the_memory_of_their_own_sessions(personas):
    session = factories.SessionFactory.create(client=personas.client, user=personas.advisor)
    own = factories.MemoryFactory.create(client=personas.client, session=session)
    other = factories.MemoryFactory.create(client=personas.client)
    event = factories.EventFactory.create(client=personas.client, session=session)
    client_unassign_advisor(client=personas.client, advisor=personas.advisor)

    assert permissions.can_read_memory(personas.advisor, own)
    assert not permissions.can_read_memory(personas.advisor, other)
    assert not permissions.can_browse_client(personas.advisor, personas.client)
    assert list(permissions.scoped(personas.advisor, Event.objects.all())) == [event]
    with pytest.raises(Http404):
        permissions.client_for_read(personas.advisor, personas.tenant, "emma")


def test_an_assignment_that_changes_nothing_is_not_audited(personas):
    def audited(action):
        return AuditEntry.objects.filter(
            action=action, object_id=str(personas.client.pk), data__advisor="advisor2"
        ).count()

    client_assign_advisor(client=personas.client, advisor=personas.advisor2)
    client_assign_advisor(client=personas.client, advisor=personas.advisor2)
    assert audited("client.assign_advisor") == 1
    client_unassign_advisor(client=personas.client, advisor=personas.advisor2)
    client_unassign_advisor(client=personas.client, advisor=personas.advisor2)
    assert audited("client.unassign_advisor") == 1
    assert not permissions.can_browse_client(personas.advisor2, personas.client)


def test_an_assignment_through_a_group_counts(personas):
    desk = Group.objects.create(name="desk")
    desk.user_set.add(personas.advisor2)
    assign_perm("memories.advise_client", desk, personas.client)
    assert permissions.can_browse_client(personas.advisor2, personas.client)


def test_an_assignment_gives_nothing_without_the_advisor_role(personas):
    # An outsider holding the object permission (a mistake in the admin) still sees nothing
    # of a tenant they are not a member of.
    assign_perm("memories.advise_client", personas.outsider, personas.client)
    assert not permissions.can_browse_client(personas.outsider, personas.client)
    assert not permissions.clients_visible_to(personas.outsider, personas.tenant).exists()


def test_inactive_and_anonymous_users_see_nothing(personas):
    from django.contrib.auth.models import AnonymousUser

    personas.supervisor.is_active = False
    for user in (personas.supervisor, AnonymousUser()):
        assert permissions.role_in(user, personas.tenant) is None
        assert not permissions.clients_visible_to(user).exists()
        assert not permissions.tenants_visible_to(user).exists()
        assert not permissions.scoped(user, ReviewItem.objects.all()).exists()


def test_a_superuser_sees_every_tenant(personas):
    both = {personas.tenant, personas.other_tenant}
    assert set(permissions.tenants_visible_to(personas.admin)) == both
    refs = {(c.tenant.slug, c.external_ref) for c in permissions.clients_visible_to(personas.admin)}
    assert ("globex", "emma") in refs and ("acme", "emma") in refs
    # Given a tenant, only that one.
    assert {c.tenant for c in permissions.clients_visible_to(personas.admin, personas.tenant)} == {
        personas.tenant
    }


def test_fetch_helpers_answer_404_or_403(personas):
    memory = factories.MemoryFactory.create(client=personas.client, tier=Tier.CORE)
    tenant = personas.tenant
    assert permissions.memory_for_write(personas.advisor, tenant, memory.pk) == memory
    with pytest.raises(PermissionDenied):
        permissions.memory_for_write(personas.client_user, tenant, memory.pk)
    for user in (personas.heir, personas.advisor2, personas.outsider):
        with pytest.raises(Http404):
            permissions.memory_for_write(user, tenant, memory.pk)
    # The key's tenant bounds even a superuser: another tenant's id is not found.
    with pytest.raises(Http404):
        permissions.memory_for_read(personas.admin, personas.other_tenant, memory.pk)
    assert permissions.memory_for_read(personas.admin, None, memory.pk) == memory

    with pytest.raises(PermissionDenied):
        permissions.memory_for_tier_override(personas.advisor, tenant, memory.pk)
    with pytest.raises(Http404):
        permissions.memory_for_tier_override(personas.advisor2, tenant, memory.pk)
    assert permissions.memory_for_tier_override(personas.supervisor, tenant, memory.pk) == memory

    item = factories.ReviewItemFactory.create(memory=memory)
    items = ReviewItem.objects.all()
    assert permissions.review_item_for_decision(personas.supervisor, items, item.pk) == item
    assert permissions.review_item_for_decision(personas.supervisor, items, item.pk, tenant)
    with pytest.raises(Http404):  # the key's tenant bounds it
        permissions.review_item_for_decision(personas.admin, items, item.pk, personas.other_tenant)
    # Who decides no reviews is told so whatever the id: theirs to see, or nobody's.
    for user in (personas.advisor, personas.advisor2, personas.client_user, personas.outsider):
        for item_id in (item.pk, uuid.uuid4()):
            with pytest.raises(PermissionDenied):
                permissions.review_item_for_decision(user, items, item_id)

    assert permissions.client_by_id_for_read(personas.heir, personas.heir_client.pk)
    with pytest.raises(Http404):
        permissions.client_by_id_for_read(personas.heir, personas.parent.pk)


def test_client_for_write(personas):
    tenant = personas.tenant
    assert permissions.client_for_write(personas.advisor, tenant, "emma") == personas.client
    assert permissions.client_for_write(personas.supervisor, tenant, "new-one") is None
    for ref in ("carlos", "new-one"):  # another advisor's, and one advisors may not create
        with pytest.raises(Http404):
            permissions.client_for_write(personas.advisor, tenant, ref)
    tenant.advisors_create_clients = True
    assert permissions.client_for_write(personas.advisor, tenant, "new-one") is None
    with pytest.raises(PermissionDenied):
        permissions.client_for_write(personas.client_user, tenant, "emma")
    # A role that may not write hears so about any reference: its own, another client's
    # (giulia, the heir's parent) and one nobody has alike.
    for ref in ("marco", "giulia", "new-one"):
        with pytest.raises(PermissionDenied):
            permissions.client_for_write(personas.heir, tenant, ref)


def test_scoped_refuses_a_model_it_does_not_know(personas):
    from django_q.models import Schedule

    with pytest.raises(TypeError, match=r"does not know how to scope django_q\.Schedule"):
        permissions.scoped(personas.supervisor, Schedule.objects.all())
    assert permissions.scoped(personas.admin, Schedule.objects.all()) is not None


def test_role_permissions_name_every_role():
    assert set(permissions.ROLE_PERMISSIONS) == set(Role.values)
    assert permissions.ROLE_PERMISSIONS[Role.CLIENT] == {permissions.READ_OWN_CORE}


def test_who_corrects_undoes_and_reads_the_audit_trail(personas):
    memory = factories.MemoryFactory.create(client=personas.client, tier=Tier.CORE)
    own_session = factories.SessionFactory.create(client=personas.advisor2_client)
    own_session.user = personas.advisor
    own_session.save()
    theirs = factories.MemoryFactory.create(client=personas.advisor2_client, session=own_session)

    assert _who(personas, lambda u: permissions.can_undo_change(u, memory)) == {
        "supervisor",
        "admin",
    }
    assert _who(personas, lambda u: permissions.can_read_audit(u, personas.client)) == {
        "advisor",
        "supervisor",
        "admin",
    }  # her own login reads her core memories, not who changed them
    assert _who(personas, lambda u: permissions.can_read_audit(u, personas.heir_client)) == {
        "advisor",
        "supervisor",
        "admin",
    }
    # an advisor who wrote in a session of another's client may correct what they wrote,
    # but reads that client's audit trail only if the client is theirs
    assert permissions.can_write_memory(personas.advisor, theirs)
    assert not permissions.can_read_audit(personas.advisor, personas.advisor2_client)
    with pytest.raises(PermissionDenied):
        permissions.memory_for_undo(personas.advisor, None, memory.pk)
    with pytest.raises(Http404):
        permissions.memory_for_undo(personas.advisor2, None, memory.pk)
    with pytest.raises(Http404):
        permissions.memory_for_audit(personas.client_user, memory.pk)
    with pytest.raises(Http404):
        permissions.client_for_audit(personas.heir, personas.client.pk)
    assert permissions.memory_for_audit(personas.advisor, memory.pk) == memory
