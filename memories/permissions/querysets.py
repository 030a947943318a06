"""Querysets filtered to what a user may see. Lists are filtered, never checked row by
row."""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Model, Q, QuerySet
from django.utils import timezone

from memories.models import (
    LIVE_STATUSES,
    ApiKey,
    AuditEntry,
    Client,
    ClientGroupObjectPermission,
    ClientUserObjectPermission,
    EmbeddingSpace,
    Event,
    EventEmbedding,
    Evidence,
    JobRun,
    Membership,
    Memory,
    MemoryAccess,
    MemoryEmbedding,
    Relation,
    Role,
    Session,
    Tenant,
    Tier,
    WebhookDelivery,
    WebhookEndpoint,
    unexpired,
)
from memories.models.records import MemoryQuerySet
from memories.permissions.roles import (
    ADVISE_CLIENT,
    DECIDE_REVIEW,
    MANAGE_API_KEYS,
    MANAGE_WEBHOOKS,
    READ_MEMORY,
    READ_ONLY_ROLES,
    ROLE_PERMISSIONS,
    SEE_ALL_CLIENTS,
    VIEW_MEMBERS,
    VIEW_OPERATIONS,
    TenantRef,
    _roles,
    _tenant_id,
    role_in,
)

# --- Queryset filters -----------------------------------------------------------------


def tenants_visible_to(user) -> QuerySet[Tenant]:
    if user is None or not user.is_authenticated or not user.is_active:
        return Tenant.objects.none()
    if user.is_superuser:
        return Tenant.objects.all()
    return Tenant.objects.filter(pk__in=list(_roles(user)))


def _assigned_client_ids(user):
    """Ids of the clients ``user`` advises, directly or through a group."""
    direct = ClientUserObjectPermission.objects.filter(
        user=user, permission__codename=ADVISE_CLIENT
    ).values("content_object_id")
    through_groups = ClientGroupObjectPermission.objects.filter(
        group__user=user, permission__codename=ADVISE_CLIENT
    ).values("content_object_id")
    return direct.union(through_groups)


def _memberships(user, tenant) -> list[tuple[object, str]]:
    """(tenant id, role) pairs to filter by: one tenant, or every tenant of the user."""
    if tenant is not None:
        role = role_in(user, tenant)
        return [(_tenant_id(tenant), role)] if role else []
    if user is None or not user.is_authenticated or not user.is_active:
        return []
    return list(_roles(user).items())


def _everything(user, tenant) -> bool:
    """A superuser looking across tenants sees everything, with no filter at all."""
    return tenant is None and user.is_authenticated and user.is_active and user.is_superuser


def _client_q(user, tenant, prefix: str = "") -> Q | None:
    """The Q selecting the clients ``user`` may see, under ``prefix`` (``"client__"``…);
    None when they may see none."""
    if _everything(user, tenant):
        return Q()
    q = None
    for tenant_id, role in _memberships(user, tenant):
        if SEE_ALL_CLIENTS in ROLE_PERMISSIONS[role]:
            part = Q(**{f"{prefix}tenant_id": tenant_id})
        elif role == Role.ADVISOR:
            part = Q(
                **{f"{prefix}tenant_id": tenant_id, f"{prefix}pk__in": _assigned_client_ids(user)}
            )
        elif role in READ_ONLY_ROLES:
            part = Q(**{f"{prefix}tenant_id": tenant_id, f"{prefix}user": user})
        else:  # pragma: no cover - every role is handled above
            continue
        q = part if q is None else q | part
    return q


def _memory_q(user, tenant, prefix: str = "") -> Q | None:
    """The Q selecting the memories ``user`` may see, under ``prefix`` (``"memory__"``…)."""
    if _everything(user, tenant):
        return Q()
    q = None
    for tenant_id, role in _memberships(user, tenant):
        in_tenant = Q(**{f"{prefix}tenant_id": tenant_id})
        if SEE_ALL_CLIENTS in ROLE_PERMISSIONS[role]:
            part = in_tenant
        elif role == Role.ADVISOR:
            part = in_tenant & (
                Q(**{f"{prefix}client_id__in": _assigned_client_ids(user)})
                | Q(**{f"{prefix}session__user": user})
            )
        elif role in READ_ONLY_ROLES:
            # Their own core tier as it stands now: live and unexpired at read time.
            part = (
                in_tenant
                & Q(
                    **{
                        f"{prefix}client__user": user,
                        f"{prefix}tier": Tier.CORE,
                        f"{prefix}status__in": LIVE_STATUSES,
                    }
                )
                & unexpired(timezone.now(), prefix)
            )
        else:  # pragma: no cover
            continue
        q = part if q is None else q | part
    return q


_QS = TypeVar("_QS", bound=QuerySet)


def _filter(queryset: _QS, q: Q | None) -> _QS:
    return queryset.none() if q is None else queryset.filter(q)


def clients_visible_to(user, tenant: TenantRef | None = None) -> QuerySet[Client]:
    """The clients ``user`` may see, in ``tenant`` or (None) in every tenant of theirs."""
    return _filter(Client.objects.all(), _client_q(user, tenant))


def memories_visible_to(user, tenant: TenantRef | None = None) -> MemoryQuerySet:
    """The memories ``user`` may see (any status; callers add ``.current()`` for answers)."""
    return _filter(Memory.objects.all(), _memory_q(user, tenant))


def _tenant_only_q(user, tenant, *, permission: str, own: str | None = None) -> Q | None:
    """Rows that belong to a tenant only (no client): the tenants where the user has
    ``permission``, plus, elsewhere, the rows whose ``own`` field is the user."""
    if _everything(user, tenant):
        return Q()
    q = None
    for tenant_id, role in _memberships(user, tenant):
        if permission in ROLE_PERMISSIONS[role]:
            part = Q(tenant_id=tenant_id)
        elif own:
            part = Q(tenant_id=tenant_id, **{own: user})
        else:
            continue
        q = part if q is None else q | part
    return q


def scoped(user, queryset: QuerySet, tenant: TenantRef | None = None) -> QuerySet:
    """``queryset`` filtered to the rows ``user`` may see, for any tenant data model
    (admin changelists, exports, pages). Models of other apps that hang off a client
    (profiles, review items) are scoped by their client; a model this function does not
    know is refused rather than shown unfiltered."""
    model = queryset.model
    if model is Tenant:
        tenants = tenants_visible_to(user)
        return (
            queryset.filter(pk__in=tenants)
            if tenant is None
            else queryset.filter(pk=_tenant_id(tenant), pk__in=tenants)
        )
    if model is Client:
        return _filter(queryset, _client_q(user, tenant))
    if model is Memory:
        return _filter(queryset, _memory_q(user, tenant))
    if model in (Evidence, MemoryEmbedding, MemoryAccess):
        return _filter(queryset, _memory_q(user, tenant, "memory__"))
    if model is Relation:
        return _filter(queryset, _memory_q(user, tenant, "source__"))
    if model in (Event, Session):
        return _filter(queryset, _raw_q(user, tenant, model))
    if model is EventEmbedding:  # a message's vector: whoever may read the message
        return queryset.filter(event__in=scoped(user, Event.objects.all(), tenant))
    if model in (ClientUserObjectPermission, ClientGroupObjectPermission):
        return _filter(queryset, _staff_client_q(user, tenant, "content_object__"))
    if model is ApiKey:
        return _filter(
            queryset, _tenant_only_q(user, tenant, permission=MANAGE_API_KEYS, own="user")
        )
    if model is Membership:
        return _filter(queryset, _tenant_only_q(user, tenant, permission=VIEW_MEMBERS, own="user"))
    if model in (AuditEntry, JobRun):
        return _filter(queryset, _tenant_only_q(user, tenant, permission=VIEW_OPERATIONS))
    if model in (WebhookEndpoint, WebhookDelivery):
        return _filter(queryset, _tenant_only_q(user, tenant, permission=MANAGE_WEBHOOKS))
    if _has_field(model, "client"):
        # Profiles, review items and the like: what the client's memory shows, so only
        # roles that read memory beyond their own core tier.
        return _filter(queryset, _staff_client_q(user, tenant, "client__"))
    if model is EmbeddingSpace:
        return queryset  # configuration shared by every tenant: no tenant data in it
    if _everything(user, tenant):
        return queryset
    raise TypeError(f"permissions.scoped does not know how to scope {model._meta.label}")


def _staff_client_q(user, tenant, prefix: str) -> Q | None:
    """Clients seen by roles that read memory (not a client's own login)."""
    if _everything(user, tenant):
        return Q()
    q = None
    for tenant_id, role in _memberships(user, tenant):
        if READ_MEMORY not in ROLE_PERMISSIONS[role]:
            continue
        part = _client_q(user, tenant_id, prefix)
        if part is not None:
            q = part if q is None else q | part
    return q


def _raw_q(user, tenant, model) -> Q | None:
    """Events and sessions: the raw record, for roles that read memory; an advisor also
    keeps their own sessions."""
    if _everything(user, tenant):
        return Q()
    own = "user" if model is Session else "session__user"
    q = None
    for tenant_id, role in _memberships(user, tenant):
        if READ_MEMORY not in ROLE_PERMISSIONS[role]:
            continue
        part = _client_q(user, tenant_id, "client__")
        # The role reads memory, so it sees some of the tenant's clients.
        assert part is not None
        if role == Role.ADVISOR:
            part = part | Q(tenant_id=tenant_id, **{own: user})
        q = part if q is None else q | part
    return q


def _has_field(model: type[Model], name: str) -> bool:
    return any(f.name == name for f in model._meta.get_fields())


def reviewable(user, rows: QuerySet) -> QuerySet:
    """``rows`` (anything with a ``tenant``) of the tenants where ``user`` decides reviews,
    limited to the clients they see."""
    if user is None or not user.is_authenticated:
        return rows.none()
    if user.is_superuser:
        return rows
    tenants = [t for t, role in _roles(user).items() if DECIDE_REVIEW in ROLE_PERMISSIONS[role]]
    return scoped(user, rows.filter(tenant_id__in=tenants))
