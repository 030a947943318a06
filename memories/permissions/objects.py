"""Questions about one object (``can_*``) and fetching one object for a user: 404 when
they may not see it, 403 when they may see it but not act."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from memories.db import bound_cursor
from memories.models import (
    LIVE_STATUSES,
    Client,
    Memory,
    Tenant,
    Tier,
)
from memories.permissions.querysets import (
    clients_visible_to,
    memories_visible_to,
    reviewable,
    tenants_visible_to,
)
from memories.permissions.roles import (
    ASSIGN_CLIENTS,
    ASSIGN_MESSAGE,
    CREATE_CLIENT,
    DECIDE_REVIEW,
    ERASE_CLIENT,
    EXPORT_CLIENT,
    IMPORT_CLIENT,
    MANAGE_API_KEYS,
    MANAGE_WEBHOOKS,
    OVERRIDE_TIER,
    READ_ONLY_MESSAGE,
    REVIEWS_MESSAGE,
    RUN_EVALUATION,
    SEE_ALL_CLIENTS,
    VIEW_OPERATIONS,
    VIEW_REVIEWS,
    WRITE_MEMORY,
    WRITER_ROLES,
    has_perm,
    is_read_only,
    role_in,
)
from memoryhub import replica

if TYPE_CHECKING:
    from memories.selectors.filters import Filters

# --- Questions: can this user …? -------------------------------------------------------


def can_see_tenant(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) is not None


def can_browse_client(user, client: Client) -> bool:
    """May open this client's memory (pages, search, context)."""
    if has_perm(user, client.tenant_id, SEE_ALL_CLIENTS):
        return True  # every client of the tenant: nothing to ask the database
    return clients_visible_to(user, client.tenant_id).filter(pk=client.pk).exists()


def can_create_client(user, tenant: Tenant) -> bool:
    """May create a client by posting about a new reference: who sees every client, and
    advisors where the tenant lets them (else a taken reference would answer differently
    from an unknown one, and tell an advisor which clients exist)."""
    if not has_perm(user, tenant, CREATE_CLIENT):
        return False
    return tenant.advisors_create_clients or has_perm(user, tenant, SEE_ALL_CLIENTS)


def can_write_client_memory(user, client: Client) -> bool:
    """May post events about this client (and so change what its memory holds)."""
    return has_perm(user, client.tenant_id, WRITE_MEMORY) and can_browse_client(user, client)


def can_read_memory(user, memory: Memory) -> bool:
    return memories_visible_to(user, memory.tenant_id).filter(pk=memory.pk).exists()


def can_write_memories(user, tenant: Tenant) -> bool:
    """May write memory at all in ``tenant`` (post events, forget, give feedback): which
    agent tools a key is offered."""
    return has_perm(user, tenant, WRITE_MEMORY)


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


def can_decide_reviews(user, tenant: Tenant | None) -> bool:
    """Decides reviews in ``tenant``, or (None) in some tenant of theirs: the review queue
    is theirs to open."""
    if tenant is not None:
        return has_perm(user, tenant, DECIDE_REVIEW)
    return any(has_perm(user, t, DECIDE_REVIEW) for t in tenants_visible_to(user))


def can_decide_review(user, target) -> bool:
    """May approve or reject a review item (``target`` an item with ``tenant_id`` and
    ``client``, or a tenant to ask in general)."""
    if isinstance(target, Tenant):
        return has_perm(user, target, DECIDE_REVIEW)
    return has_perm(user, target.tenant_id, DECIDE_REVIEW) and can_browse_client(
        user, target.client
    )


def can_assign_client(user, client: Client) -> bool:
    """May choose who advises ``client`` (its advisors and groups): supervisors and admins
    of its tenant. An advisor never hands clients around, their own included."""
    return has_perm(user, client.tenant_id, ASSIGN_CLIENTS) and can_browse_client(user, client)


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


def can_manage_webhooks(user, tenant: Tenant) -> bool:
    return has_perm(user, tenant, MANAGE_WEBHOOKS)


def can_view_operations(user, tenant: Tenant) -> bool:
    """May see job runs and the audit trail."""
    return has_perm(user, tenant, VIEW_OPERATIONS)


def can_see_health_details(user, tenant: Tenant | None) -> bool:
    """May read the health report's details (database and pgvector versions, embedding
    providers, queue counts): who operates the system, the roles that see job runs and
    the audit trail (supervisors, admins), in ``tenant`` or (None, a browser session) in
    some tenant of theirs. An advisor's agent or a client's key needs the status alone,
    and the details would tell whoever holds a leaked one what to attack."""
    if tenant is not None:
        return can_view_operations(user, tenant)
    return any(can_view_operations(user, t) for t in tenants_visible_to(user))


def readable_tiers(user, client: Client) -> tuple[str, ...]:
    """The tiers of ``client``'s memory ``user`` may read; () means every tier."""
    return (Tier.CORE,) if is_read_only(user, client.tenant_id) else ()


def readable_statuses(user, client: Client) -> tuple[str, ...]:
    """The statuses ``user`` may read; () means every status (forgotten and superseded
    memories stay visible to advisors and supervisors, as history)."""
    return tuple(LIVE_STATUSES) if is_read_only(user, client.tenant_id) else ()


def readable_filters(user, client: Client, filters: Filters) -> Filters:
    """``filters`` narrowed to what ``user`` may read of ``client``, for the API's search and
    the client page's alike. A read-only persona (client, prospect, heir) reads the live
    core tier and no past state: tiers and statuses it may not read are dropped from what it
    asked (nothing left: the core tier, and the search's default, live and unexpired), and
    ``as_of`` goes."""
    tiers = readable_tiers(user, client)
    if not tiers:
        return filters
    statuses = readable_statuses(user, client)
    return replace(
        filters,
        tier=tuple(t for t in filters.tier if t in tiers) or tiers,
        status=tuple(s for s in filters.status if s in statuses),
        as_of=None,
    )


# --- Fetch one: 404 when not visible, 403 when visible but not actionable ------------


def _not_found_client(external_ref: str) -> Http404:
    return Http404(f"Client {external_ref!r} not found.")


def _not_yours(user, tenant: Tenant, external_ref: str) -> Http404:
    """Writing about a reference that is not among the user's clients: one answer whether
    it is unknown or another advisor's, saying what to do when a new client is meant."""
    if can_create_client(user, tenant):
        return _not_found_client(external_ref)
    return Http404(
        f"Client {external_ref!r} is not among your clients. In this tenant new clients are "
        "created by a supervisor (or assigned to you); advisors do not create them by "
        "posting about them."
    )


# Client has no field that converts what the database returns: rows load as they come.
_CLIENT_COLUMNS = [f.attname for f in Client._meta.concrete_fields]
_CLIENT_BY_REF = (
    f"SELECT {', '.join(_CLIENT_COLUMNS)} FROM {Client._meta.db_table} "  # noqa: S608
    "WHERE tenant_id = %s AND external_ref = %s"
)


def client_for_read(user, tenant: Tenant, external_ref: str) -> Client:
    """The client ``external_ref`` of ``tenant`` if ``user`` may see it, else 404 (missing
    or not theirs: the same answer). A reference with a NUL in it (a path such as
    ``/clients/%00/``) names no client: no stored text can hold one."""
    if "\x00" in external_ref:
        raise _not_found_client(external_ref)
    if has_perm(user, tenant, SEE_ALL_CLIENTS):
        # Every search and context starts here: one row by its unique key (the ORM took
        # longer to build this query than the database to answer it).
        reads_on = replica.read_alias()
        with bound_cursor(reads_on) as cursor:
            cursor.execute(_CLIENT_BY_REF, [tenant.pk, external_ref])
            row = cursor.fetchone()
        client = row and Client.from_db(reads_on, _CLIENT_COLUMNS, row)
    else:
        client = clients_visible_to(user, tenant).filter(external_ref=external_ref).first()
    if client is None:
        raise _not_found_client(external_ref)
    client.tenant = tenant  # the caller's own, already loaded
    return client


def client_for_write(user, tenant: Tenant, external_ref: str) -> Client | None:
    """The client ``external_ref`` if ``user`` may write its memory; None if it does not
    exist yet and the user may create it. 403 if the user's role may not write (whatever
    the reference), else 404 if they may not see it."""
    return clients_for_write(user, tenant, [external_ref])[external_ref]


def clients_for_write(user, tenant: Tenant, external_refs) -> dict[str, Client | None]:
    """``client_for_write`` for many references, with one query for the clients: the first
    one refused raises, in reference order.

    A role that may not write at all (client, prospect, heir) is refused before any
    reference is looked up: references are people's names, and a refusal that differed
    between another client's reference and one nobody has would tell which clients exist."""
    if is_read_only(user, tenant):
        raise PermissionDenied(READ_ONLY_MESSAGE)
    refs = sorted(set(external_refs))
    found = {c.external_ref: c for c in Client.objects.filter(tenant=tenant, external_ref__in=refs)}
    for client in found.values():
        client.tenant = tenant  # the caller's own, already loaded
    return {ref: _writable(user, tenant, ref, found.get(ref)) for ref in refs}


def _writable(user, tenant: Tenant, external_ref: str, client: Client | None) -> Client | None:
    if client is None:
        if not can_create_client(user, tenant):
            raise _not_yours(user, tenant, external_ref)
        return None
    if not can_browse_client(user, client):
        raise _not_yours(user, tenant, external_ref)
    # can_write_client_memory, without asking the database again what it just answered.
    if not has_perm(user, client.tenant_id, WRITE_MEMORY):
        raise PermissionDenied(READ_ONLY_MESSAGE)
    return client


def client_for_erasure(user, tenant: Tenant, external_ref: str) -> Client:
    """The client if ``user`` may erase it; 404 if they may not see it, 403 if they may
    see it but not erase it (advisors, and the client's own login)."""
    client = client_for_read(user, tenant, external_ref)
    if not can_erase_client(user, client):
        raise PermissionDenied(_("Only a supervisor may erase a client."))
    return client


def client_for_export(user, tenant: Tenant, external_ref: str) -> Client:
    """The client if ``user`` may export all of it; 404 if not visible, 403 if visible."""
    client = client_for_read(user, tenant, external_ref)
    if not can_export_client(user, client):
        raise PermissionDenied(_("Only a supervisor may export a client's data."))
    return client


def client_for_assignment(user, tenant: Tenant, external_ref: str) -> Client:
    """The client if ``user`` may choose who advises it; 404 if not visible, 403 if visible
    (its advisor, its own login)."""
    client = client_for_read(user, tenant, external_ref)
    if not can_assign_client(user, client):
        raise PermissionDenied(ASSIGN_MESSAGE)
    return client


def client_by_id_for_assignment(user, client_id) -> Client:
    """``client_for_assignment`` for the pages, by primary key in any tenant of the user."""
    client = client_by_id_for_read(user, client_id)
    if not can_assign_client(user, client):
        raise PermissionDenied(ASSIGN_MESSAGE)
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
        raise PermissionDenied(_("Only a supervisor may override a memory's tier."))
    return memory


def review_item_for_decision(user, items: QuerySet, item_id, tenant: Tenant | None = None):
    """The review item ``item_id`` from ``items`` (``ReviewItem.objects``: ``memories``
    does not import ``curation``) if ``user`` may decide it, in ``tenant`` (the API's) or
    None (the pages: any tenant of theirs). 403 for a user who decides no reviews there,
    whatever the id: an advisor told 403 for an item about their own client and 404 for
    an id nobody has would learn which ids exist. Else 404 for one they may not decide."""
    if not can_decide_reviews(user, tenant):
        raise PermissionDenied(REVIEWS_MESSAGE)
    if tenant is not None:
        items = items.filter(tenant=tenant)
    item = reviewable(user, items).select_related("client").filter(pk=item_id).first()
    if item is None:
        raise Http404("Review item not found.")
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
