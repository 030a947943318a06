"""Who may see and do what: the one place that answers it.

Every API view, page, admin queryset, export and job that acts for a user asks here.

Roles come from the tenant membership (``Membership.role``); advisor ↔ client assignments
are django-guardian object permissions (``memories.advise_client``, given to the user or
to one of their groups). A superuser is ADMIN in every tenant.

- ADMIN (a superuser): every tenant, and everything in it.
- SUPERVISOR: every client of their tenant; writes memory, overrides tiers, decides
  reviews, runs evaluations, erases clients, manages the tenant's API keys.
- ADVISOR: the clients assigned to them, and the memory of their own sessions (even
  after the client is unassigned); writes the memory they see; a client they create by
  posting about it is assigned to them.
- CLIENT, PROSPECT: the live ``core`` tier of their own client record, read only.
- NEXTGEN_HEIR: the live ``core`` tier of their own client record, read only; never a
  parent's (a family link gives no access).

Three kinds of answer:

- ``can_*(user, obj) -> bool``: for a view deciding what to show (a button, a link).
- ``*_for_read`` / ``*_for_write`` / ``*_for_decision``: fetch one object for a user; they
  raise ``Http404`` when the user may not see it (the same answer as for a missing one,
  so ids and references cannot be probed) and ``PermissionDenied`` (403) when the user
  may see it but not do that.
- ``*_visible_to`` and ``scoped``: filter querysets to what a user may see. Lists are
  filtered, never checked row by row.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Model, Q, QuerySet
from django.http import Http404

from memories.models import (
    LIVE_STATUSES,
    ApiKey,
    AuditEntry,
    Client,
    ClientGroupObjectPermission,
    ClientUserObjectPermission,
    EmbeddingSpace,
    Event,
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
)

# --- Named permissions ---------------------------------------------------------------

ADVISE_CLIENT = "advise_client"  # the guardian object permission: advisor ↔ client

READ_MEMORY = "read_memory"  # read the memory of the clients one sees
READ_OWN_CORE = "read_own_core"  # read the live core tier of one's own client record
WRITE_MEMORY = "write_memory"  # post events, forget, give feedback
CREATE_CLIENT = "create_client"  # a new client on first use of its reference
SEE_ALL_CLIENTS = "see_all_clients"  # every client of the tenant, assigned or not
OVERRIDE_TIER = "override_tier"  # pin a memory's tier by hand
VIEW_REVIEWS = "view_reviews"  # see the review queue (of the clients one sees)
DECIDE_REVIEW = "decide_review"  # approve promotions, settle conflicts
RUN_EVALUATION = "run_evaluation"
ERASE_CLIENT = "erase_client"  # the right to be forgotten
EXPORT_CLIENT = "export_client"  # portability: everything held about a client, in one file
IMPORT_CLIENT = "import_client"  # portability, the way back: a client from its export
MANAGE_API_KEYS = "manage_api_keys"  # list and revoke the tenant's keys
VIEW_MEMBERS = "view_members"  # who belongs to the tenant, in which role
VIEW_OPERATIONS = "view_operations"  # job runs and the audit trail

_SUPERVISOR = frozenset(
    {
        READ_MEMORY,
        WRITE_MEMORY,
        CREATE_CLIENT,
        SEE_ALL_CLIENTS,
        OVERRIDE_TIER,
        VIEW_REVIEWS,
        DECIDE_REVIEW,
        RUN_EVALUATION,
        ERASE_CLIENT,
        EXPORT_CLIENT,
        IMPORT_CLIENT,
        MANAGE_API_KEYS,
        VIEW_MEMBERS,
        VIEW_OPERATIONS,
    }
)
ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    Role.ADMIN: _SUPERVISOR,
    Role.SUPERVISOR: _SUPERVISOR,
    Role.ADVISOR: frozenset({READ_MEMORY, WRITE_MEMORY, CREATE_CLIENT, VIEW_REVIEWS}),
    Role.CLIENT: frozenset({READ_OWN_CORE}),
    Role.PROSPECT: frozenset({READ_OWN_CORE}),
    Role.NEXTGEN_HEIR: frozenset({READ_OWN_CORE}),
}

WRITER_ROLES = frozenset({Role.ADMIN, Role.SUPERVISOR, Role.ADVISOR})
READ_ONLY_ROLES = frozenset({Role.CLIENT, Role.PROSPECT, Role.NEXTGEN_HEIR})
READ_ONLY_MESSAGE = "This role has read-only access to memory."


# --- Roles ----------------------------------------------------------------------------


def _roles(user) -> dict:
    """tenant id → role for every tenant the user belongs to, cached on the user object
    (one query per request)."""
    cache = user.__dict__.get("_memoryhub_roles")
    if cache is None:
        cache = dict(Membership.objects.filter(user=user).values_list("tenant_id", "role"))
        user.__dict__["_memoryhub_roles"] = cache
    return cache


def role_remember(user, tenant: Tenant, role: str | None) -> None:
    """Seed the role cache from a role read alongside the API key: an API request acts in
    the key's tenant only, so that is the one role it needs (and one query fewer)."""
    user.__dict__["_memoryhub_roles"] = {tenant.pk: role} if role else {}


def _tenant_id(tenant) -> object:
    return tenant.pk if isinstance(tenant, Tenant) else tenant


def role_in(user, tenant: Tenant) -> str | None:
    """The user's role in ``tenant`` (superusers are ADMIN everywhere), or None."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN
    return _roles(user).get(_tenant_id(tenant))


def has_perm(user, tenant: Tenant, permission: str) -> bool:
    """Whether ``user``'s role in ``tenant`` carries the named ``permission``."""
    return permission in ROLE_PERMISSIONS.get(role_in(user, tenant) or "", frozenset())


def is_read_only(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) in READ_ONLY_ROLES


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
            part = in_tenant & Q(
                **{
                    f"{prefix}client__user": user,
                    f"{prefix}tier": Tier.CORE,
                    f"{prefix}status__in": LIVE_STATUSES,
                }
            )
        else:  # pragma: no cover
            continue
        q = part if q is None else q | part
    return q


def _filter(queryset: QuerySet, q: Q | None) -> QuerySet:
    return queryset.none() if q is None else queryset.filter(q)


def clients_visible_to(user, tenant: Tenant | None = None) -> QuerySet[Client]:
    """The clients ``user`` may see, in ``tenant`` or (None) in every tenant of theirs."""
    return _filter(Client.objects.all(), _client_q(user, tenant))


def memories_visible_to(user, tenant: Tenant | None = None) -> QuerySet[Memory]:
    """The memories ``user`` may see (any status; callers add ``.live()`` for answers)."""
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


def scoped(user, queryset: QuerySet, tenant: Tenant | None = None) -> QuerySet:
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
        if role == Role.ADVISOR:
            part = part | Q(tenant_id=tenant_id, **{own: user})
        q = part if q is None else q | part
    return q


def _has_field(model: type[Model], name: str) -> bool:
    return any(f.name == name for f in model._meta.get_fields())


# --- Questions: can this user …? -------------------------------------------------------


def can_see_tenant(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) is not None


def can_browse_client(user, client: Client) -> bool:
    """May open this client's memory (pages, search, context)."""
    return clients_visible_to(user, client.tenant_id).filter(pk=client.pk).exists()


def can_create_client(user, tenant: Tenant) -> bool:
    return has_perm(user, tenant, CREATE_CLIENT)


def can_write_client_memory(user, client: Client) -> bool:
    """May post events about this client (and so change what its memory holds)."""
    return has_perm(user, client.tenant_id, WRITE_MEMORY) and can_browse_client(user, client)


def can_read_memory(user, memory: Memory) -> bool:
    return memories_visible_to(user, memory.tenant_id).filter(pk=memory.pk).exists()


def can_write_memory(user, memory: Memory) -> bool:
    """May forget this memory or give feedback on it."""
    return has_perm(user, memory.tenant_id, WRITE_MEMORY) and can_read_memory(user, memory)


def can_override_tier(user, target: Tenant | Memory) -> bool:
    """May pin a memory's tier (``target`` a memory, or a tenant to ask in general)."""
    if isinstance(target, Memory):
        return has_perm(user, target.tenant_id, OVERRIDE_TIER) and can_read_memory(user, target)
    return has_perm(user, target, OVERRIDE_TIER)


def can_view_review_queue(user, tenant: Tenant) -> bool:
    return has_perm(user, tenant, VIEW_REVIEWS)


def can_decide_review(user, target) -> bool:
    """May approve or reject a review item (``target`` an item with ``tenant_id`` and
    ``client``, or a tenant to ask in general)."""
    if isinstance(target, Tenant):
        return has_perm(user, target, DECIDE_REVIEW)
    return has_perm(user, target.tenant_id, DECIDE_REVIEW) and can_browse_client(
        user, target.client
    )


def can_run_evaluation(user, tenant: Tenant) -> bool:
    return has_perm(user, tenant, RUN_EVALUATION)


def can_erase_client(user, client: Client) -> bool:
    return has_perm(user, client.tenant_id, ERASE_CLIENT) and can_browse_client(user, client)


def can_export_client(user, client: Client) -> bool:
    """Supervisors and admins. Advisors read their clients' memory through the pages and
    the API, but a complete file of a client (events, audit) is a data-protection act."""
    return has_perm(user, client.tenant_id, EXPORT_CLIENT) and can_browse_client(user, client)


def can_import_client(user, tenant: Tenant) -> bool:
    """Supervisors and admins: an import writes a whole client, events and audit trail
    included, as a data-protection act (the counterpart of export)."""
    return has_perm(user, tenant, IMPORT_CLIENT)


def can_manage_api_keys(user, tenant: Tenant) -> bool:
    return has_perm(user, tenant, MANAGE_API_KEYS)


def can_view_operations(user, tenant: Tenant) -> bool:
    """May see job runs and the audit trail."""
    return has_perm(user, tenant, VIEW_OPERATIONS)


def readable_tiers(user, client: Client) -> tuple[str, ...]:
    """The tiers of ``client``'s memory ``user`` may read; () means every tier."""
    return (Tier.CORE,) if is_read_only(user, client.tenant_id) else ()


def readable_statuses(user, client: Client) -> tuple[str, ...]:
    """The statuses ``user`` may read; () means every status (forgotten and superseded
    memories stay visible to advisors and supervisors, as history)."""
    return tuple(LIVE_STATUSES) if is_read_only(user, client.tenant_id) else ()


# --- Fetch one: 404 when not visible, 403 when visible but not actionable ------------


def _not_found_client(external_ref: str) -> Http404:
    return Http404(f"Client {external_ref!r} not found.")


def client_for_read(user, tenant: Tenant, external_ref: str) -> Client:
    """The client ``external_ref`` of ``tenant`` if ``user`` may see it, else 404 (missing
    or not theirs: the same answer)."""
    if has_perm(user, tenant, SEE_ALL_CLIENTS):
        # Every search and context starts here: one row by its unique key (the ORM took
        # longer to build this query than the database to answer it).
        found = Client.objects.raw(
            f"SELECT * FROM {Client._meta.db_table} WHERE tenant_id = %s AND external_ref = %s",  # noqa: S608
            [tenant.pk, external_ref],
        )
        client = next(iter(found), None)
    else:
        client = clients_visible_to(user, tenant).filter(external_ref=external_ref).first()
    if client is None:
        raise _not_found_client(external_ref)
    client.tenant = tenant  # the caller's own, already loaded
    return client


def client_for_write(user, tenant: Tenant, external_ref: str) -> Client | None:
    """The client ``external_ref`` if ``user`` may write its memory; None if it does not
    exist yet and the user may create it. 404 if the user may not see it, 403 if they
    may see it (or would see it, once created) but not write."""
    client = Client.objects.filter(tenant=tenant, external_ref=external_ref).first()
    if client is None:
        if is_read_only(user, tenant):
            raise PermissionDenied(READ_ONLY_MESSAGE)
        if not can_create_client(user, tenant):
            raise _not_found_client(external_ref)
        return None
    if not can_browse_client(user, client):
        raise _not_found_client(external_ref)
    if not can_write_client_memory(user, client):
        raise PermissionDenied(READ_ONLY_MESSAGE)
    return client


def client_for_erasure(user, tenant: Tenant, external_ref: str) -> Client:
    """The client if ``user`` may erase it; 404 if they may not see it, 403 if they may
    see it but not erase it (advisors, and the client's own login)."""
    client = client_for_read(user, tenant, external_ref)
    if not can_erase_client(user, client):
        raise PermissionDenied("Only a supervisor may erase a client.")
    return client


def client_for_export(user, tenant: Tenant, external_ref: str) -> Client:
    """The client if ``user`` may export all of it; 404 if not visible, 403 if visible."""
    client = client_for_read(user, tenant, external_ref)
    if not can_export_client(user, client):
        raise PermissionDenied("Only a supervisor may export a client's data.")
    return client


def client_by_id_for_read(user, client_id) -> Client:
    """The client with primary key ``client_id``, in any tenant of the user (pages)."""
    client = clients_visible_to(user).select_related("tenant").filter(pk=client_id).first()
    if client is None:
        raise Http404("Client not found.")
    return client


def memory_for_read(user, tenant: Tenant | None, memory_id) -> Memory:
    """The memory if ``user`` may see it (in ``tenant``, or None: any tenant of theirs),
    else 404."""
    memory = memories_visible_to(user, tenant).select_related("client").filter(pk=memory_id).first()
    if memory is None:
        raise Http404("Memory not found.")
    return memory


def memory_for_write(user, tenant: Tenant | None, memory_id) -> Memory:
    """The memory if ``user`` may change its state (forget, feedback); 404 if they may
    not see it, 403 if they may see it but not act (clients, prospects, heirs)."""
    memory = memory_for_read(user, tenant, memory_id)
    if not has_perm(user, memory.tenant_id, WRITE_MEMORY):
        raise PermissionDenied(READ_ONLY_MESSAGE)
    return memory


def memory_for_tier_override(user, tenant: Tenant | None, memory_id) -> Memory:
    """The memory if ``user`` may pin its tier; 404 if not visible, 403 if visible only."""
    memory = memory_for_read(user, tenant, memory_id)
    if not can_override_tier(user, memory):
        raise PermissionDenied("Only a supervisor may override a memory's tier.")
    return memory


def review_item_for_decision(user, items: QuerySet, item_id):
    """The review item ``item_id`` from ``items`` (``ReviewItem.objects``: ``memories``
    does not import ``curation``) if ``user`` may decide it; 404 if they may not see it,
    403 if they may see it but not decide (advisors)."""
    item = scoped(user, items).select_related("client").filter(pk=item_id).first()
    if item is None:
        raise Http404("Review item not found.")
    if not can_decide_review(user, item):
        raise PermissionDenied("Only a supervisor may decide a review.")
    return item


# --- Pages --------------------------------------------------------------------------
# Pages address clients and memories by id across the tenants a user belongs to.


def can_browse_clients(user, tenant: Tenant) -> bool:
    """May list and open the tenant's clients (advisors see their own share of them)."""
    return role_in(user, tenant) in WRITER_ROLES


def can_read_history(user, client: Client) -> bool:
    """Events, sessions and evidence (the raw record) are for those who read every tier."""
    return not readable_tiers(user, client)


def own_client(user) -> Client | None:
    """The client record linked to ``user``'s own login (client, prospect, heir), if any."""
    if user is None or not user.is_authenticated:
        return None
    return clients_visible_to(user).filter(user=user).select_related("tenant").first()


def reviewable(user, rows: QuerySet) -> QuerySet:
    """``rows`` (anything with a ``tenant``) of the tenants where ``user`` decides reviews,
    limited to the clients they see."""
    if user is None or not user.is_authenticated:
        return rows.none()
    if user.is_superuser:
        return rows
    tenants = [t for t, role in _roles(user).items() if DECIDE_REVIEW in ROLE_PERMISSIONS[role]]
    return scoped(user, rows.filter(tenant_id__in=tenants))
