"""Tenants, members and advisor assignments."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from guardian.shortcuts import assign_perm, get_user_perms, remove_perm

from memories.models import Client, Membership, Role, Tenant, UserSettings
from memories.services.tenancy.audit import audit

ADVISE_CLIENT = "memories.advise_client"


def tenant_get_or_create(*, slug: str, name: str = "", language: str = "english") -> Tenant:
    tenant, _ = Tenant.objects.get_or_create(
        slug=slug, defaults={"name": name or slug, "language": language}
    )
    return tenant


@transaction.atomic
def member_ensure(*, tenant: Tenant, username: str, role: str, password: str | None = None):
    """The user ``username`` with ``role`` in ``tenant``, created when missing.

    An existing member keeps their role: changing a role is a decision, not a side effect.
    """
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(Role.values)}")
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username)
    if created or password is not None:
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
    if role == Role.ADMIN:
        user.is_staff = user.is_superuser = True
    user.save()
    membership, _ = Membership.objects.get_or_create(
        tenant=tenant, user=user, defaults={"role": role}
    )
    if membership.role != role:
        raise ValueError(
            f"user {username} is already {membership.role} in tenant {tenant.slug}, not {role}"
        )
    return user


@transaction.atomic
def client_assign_advisor(*, client: Client, advisor, actor=None, actor_label: str = "") -> None:
    if not Membership.objects.filter(
        tenant_id=client.tenant_id, user=advisor, role=Role.ADVISOR
    ).exists():
        raise ValueError(f"{advisor} is not an advisor of tenant {client.tenant.slug}")
    if _advises(advisor, client):
        return  # nothing changes, nothing to audit (``serve`` seeds the demo at every start)
    assign_perm(ADVISE_CLIENT, advisor, client)
    audit(
        tenant_id=client.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="client.assign_advisor",
        object_type="client",
        object_id=str(client.pk),
        data={"advisor": advisor.get_username()},
    )


@transaction.atomic
def client_unassign_advisor(*, client: Client, advisor, actor=None, actor_label: str = "") -> None:
    if not _advises(advisor, client):
        return
    remove_perm(ADVISE_CLIENT, advisor, client)
    audit(
        tenant_id=client.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="client.unassign_advisor",
        object_type="client",
        object_id=str(client.pk),
        data={"advisor": advisor.get_username()},
    )


def _advises(advisor, client: Client) -> bool:
    """Assigned to ``client`` itself (not through a group, which assignment never uses)."""
    return ADVISE_CLIENT.partition(".")[2] in get_user_perms(advisor, client)


def client_advisors(client: Client):
    return get_user_model().objects.filter(
        clientuserobjectpermission__content_object=client,
        clientuserobjectpermission__permission__codename="advise_client",
    )


def user_language_set(*, user, language: str) -> UserSettings:
    """The language ``user`` reads the pages in; "" lets the browser, their client or
    their tenant decide (``memories.pages.language``)."""
    settings_row, _ = UserSettings.objects.update_or_create(
        user=user, defaults={"language": language}
    )
    return settings_row
