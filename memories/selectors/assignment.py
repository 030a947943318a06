"""Who advises a client, and whom a supervisor may choose: the tenant's advisors and its
groups.

Django's groups belong to no tenant. A group is the tenant's when it has members and every
one of them belongs to the tenant: a supervisor never reads the name of a group that
holds someone of another tenant (and a group's advisor in another tenant would see
nothing anyway: ``permissions`` reads an assignment within the advisor's own tenant).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet

from memories.models import (
    Client,
    ClientGroupObjectPermission,
    ClientUserObjectPermission,
    Role,
    Tenant,
)
from memories.permissions import ADVISE_CLIENT


@dataclass(frozen=True)
class Assignment:
    """Who advises a client: usernames and group names, sorted."""

    advisors: tuple[str, ...]
    groups: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"advisors": list(self.advisors), "groups": list(self.groups)}


def client_assignment(client: Client) -> Assignment:
    users = ClientUserObjectPermission.objects.filter(
        content_object=client, permission__codename=ADVISE_CLIENT
    ).values_list("user__username", flat=True)
    groups = ClientGroupObjectPermission.objects.filter(
        content_object=client, permission__codename=ADVISE_CLIENT
    ).values_list("group__name", flat=True)
    return Assignment(tuple(sorted(users)), tuple(sorted(groups)))


def tenant_advisors(tenant: Tenant | UUID) -> QuerySet:
    """The active advisors of ``tenant`` (a tenant or its id), by username."""
    return (
        get_user_model()
        .objects.filter(memberships__tenant=tenant, memberships__role=Role.ADVISOR, is_active=True)
        .order_by("username")
    )


def tenant_groups(tenant: Tenant | UUID) -> QuerySet[Group]:
    """The groups every member of which belongs to ``tenant``, by name."""
    outsider = (
        get_user_model().objects.filter(groups=OuterRef("pk")).exclude(memberships__tenant=tenant)
    )
    return (
        Group.objects.filter(user__memberships__tenant=tenant)
        .exclude(Exists(outsider))
        .distinct()
        .order_by("name")
    )


def advised() -> ExpressionWrapper:
    """Annotation for a client queryset: whether anyone (an advisor or a group) advises it."""
    users = ClientUserObjectPermission.objects.filter(
        content_object=OuterRef("pk"), permission__codename=ADVISE_CLIENT
    )
    groups = ClientGroupObjectPermission.objects.filter(
        content_object=OuterRef("pk"), permission__codename=ADVISE_CLIENT
    )
    return ExpressionWrapper(Q(Exists(users)) | Q(Exists(groups)), output_field=BooleanField())
