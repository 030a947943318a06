"""Who may see and do what: the one place that answers it.

Roles come from the tenant membership; advisor ↔ client assignments are django-guardian
object permissions (``memories.advise_client``). Fetch helpers answer 404 for an object
the user may not see (the same answer as for a missing one) and 403 for one they may see
but not act on.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from memories.models import Client, Membership, Role, Tenant

ADVISE_CLIENT = "advise_client"
WRITER_ROLES = frozenset({Role.ADMIN, Role.SUPERVISOR, Role.ADVISOR})
READ_ONLY_ROLES = frozenset({Role.CLIENT, Role.PROSPECT, Role.NEXTGEN_HEIR})


def role_in(user, tenant: Tenant) -> str | None:
    """The user's role in ``tenant`` (superusers are ADMIN everywhere), cached per user."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    cache = user.__dict__.setdefault("_memoryhub_roles", {})
    if tenant.pk not in cache:
        cache[tenant.pk] = (
            Membership.objects.filter(user=user, tenant=tenant).values_list("role", flat=True)
        ).first()
    return cache[tenant.pk]


def role_remember(user, tenant: Tenant, role: str | None) -> None:
    """Seed ``role_in``'s cache with a role read alongside something else (the API key)."""
    user.__dict__.setdefault("_memoryhub_roles", {})[tenant.pk] = role


def clients_visible_to(user, tenant: Tenant) -> QuerySet[Client]:
    role = role_in(user, tenant)
    clients = Client.objects.filter(tenant=tenant)
    if role in (Role.ADMIN, Role.SUPERVISOR):
        return clients
    if role == Role.ADVISOR:
        return clients.filter(
            clientuserobjectpermission__user=user,
            clientuserobjectpermission__permission__codename=ADVISE_CLIENT,
        )
    if role in READ_ONLY_ROLES:
        return clients.filter(user=user)
    return clients.none()


def can_create_client(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) in WRITER_ROLES


def can_write_client_memory(user, client: Client) -> bool:
    role = role_in(user, client.tenant)
    if role in (Role.ADMIN, Role.SUPERVISOR):
        return True
    return (
        role == Role.ADVISOR
        and clients_visible_to(user, client.tenant).filter(pk=client.pk).exists()
    )


def client_for_write(user, tenant: Tenant, external_ref: str) -> Client | None:
    """The client ``external_ref`` if ``user`` may write its memory; None if it does not
    exist yet. 404 if the user may not see it, 403 if they may see but not write."""
    client = Client.objects.filter(tenant=tenant, external_ref=external_ref).first()
    if client is None:
        if role_in(user, tenant) in READ_ONLY_ROLES:
            raise PermissionDenied("This role has read-only access to memory.")
        if not can_create_client(user, tenant):
            raise Http404(f"Client {external_ref!r} not found.")
        return None
    if not clients_visible_to(user, tenant).filter(pk=client.pk).exists():
        raise Http404(f"Client {external_ref!r} not found.")
    if not can_write_client_memory(user, client):
        raise PermissionDenied("This role has read-only access to memory.")
    return client


def client_for_read(user, tenant: Tenant, external_ref: str) -> Client:
    """The client ``external_ref`` if ``user`` may see it, else 404 (missing or not theirs)."""
    client = clients_visible_to(user, tenant).filter(external_ref=external_ref).first()
    if client is None:
        raise Http404(f"Client {external_ref!r} not found.")
    client.tenant = tenant  # the caller's own, already loaded
    return client


def readable_tiers(user, client: Client) -> tuple[str, ...]:
    """The tiers of ``client``'s memory ``user`` may read: clients, prospects and heirs see
    only the core tier of their own profile; () means every tier."""
    if role_in(user, client.tenant) in READ_ONLY_ROLES:
        return ("core",)
    return ()


def memories_visible_to(user, tenant: Tenant):
    from memories.models import Memory

    memories = Memory.objects.filter(tenant=tenant, client__in=clients_visible_to(user, tenant))
    if role_in(user, tenant) in READ_ONLY_ROLES:
        memories = memories.filter(tier="core")
    return memories


def memory_for_read(user, tenant: Tenant, memory_id):
    memory = memories_visible_to(user, tenant).filter(pk=memory_id).first()
    if memory is None:
        raise Http404("Memory not found.")
    return memory


def memory_for_write(user, tenant: Tenant, memory_id):
    """The memory if ``user`` may change its state; 404 if they may not see it, 403 if
    they may see it but not act (clients, prospects, heirs)."""
    memory = memory_for_read(user, tenant, memory_id)
    if not can_write_client_memory(user, memory.client):
        raise PermissionDenied("This role has read-only access to memory.")
    return memory


# --- Curation UI (issue #7) ---------------------------------------------------------
# Pages address clients, memories and review items by id across the tenants a user
# belongs to; reviewing (decisions, tier overrides) is for supervisors and admins.

REVIEWER_ROLES = frozenset({Role.ADMIN, Role.SUPERVISOR})


def tenants_of(user) -> QuerySet[Tenant]:
    """The tenants ``user`` belongs to (every tenant for a superuser)."""
    if not user.is_authenticated:
        return Tenant.objects.none()
    if user.is_superuser:
        return Tenant.objects.all()
    return Tenant.objects.filter(memberships__user=user)


def can_browse_clients(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) in WRITER_ROLES


def can_review(user, tenant: Tenant) -> bool:
    return role_in(user, tenant) in REVIEWER_ROLES


def can_read_history(user, client: Client) -> bool:
    """Events, sessions and evidence (the raw record) are for those who read every tier."""
    return not readable_tiers(user, client)


def own_client(user) -> Client | None:
    """The client record linked to ``user``'s own login (client, prospect, heir), if any."""
    if not user.is_authenticated:
        return None
    client = Client.objects.filter(user=user).select_related("tenant").first()
    if client is None or not clients_visible_to(user, client.tenant).filter(pk=client.pk).exists():
        return None
    return client


def client_for_page(user, client_id) -> Client:
    """The client ``client_id`` if ``user`` may see it, else 404 (missing or not theirs)."""
    client = Client.objects.filter(pk=client_id).select_related("tenant").first()
    if client is None or not clients_visible_to(user, client.tenant).filter(pk=client.pk).exists():
        raise Http404("Client not found.")
    return client


def memory_for_page(user, memory_id):
    """The memory ``memory_id`` if ``user`` may see it, else 404."""
    from memories.models import Memory

    tenant_id = Memory.objects.filter(pk=memory_id).values_list("tenant_id", flat=True).first()
    if tenant_id is None:
        raise Http404("Memory not found.")
    tenant = Tenant.objects.get(pk=tenant_id)
    memory = memories_visible_to(user, tenant).filter(pk=memory_id).select_related("client").first()
    if memory is None:
        raise Http404("Memory not found.")
    return memory


def memory_for_tier_override(user, memory_id):
    """404 if ``user`` may not see the memory, 403 if they may see it but not review."""
    memory = memory_for_page(user, memory_id)
    if not can_review(user, memory.tenant):
        raise PermissionDenied("Only a supervisor or an admin can override a tier.")
    return memory


def reviewable(user, rows: QuerySet) -> QuerySet:
    """``rows`` (anything with a ``tenant``) of the tenants where ``user`` reviews."""
    if not user.is_authenticated:
        return rows.none()
    if user.is_superuser:
        return rows
    return rows.filter(tenant__memberships__user=user, tenant__memberships__role__in=REVIEWER_ROLES)


def review_item_for_decision(user, rows: QuerySet, item_id):
    """One review item of ``rows`` that ``user`` may decide: 404 unless they may see the
    memories it is about, 403 if they may see them but not review."""
    item = rows.filter(pk=item_id).select_related("tenant").first()
    if item is None:
        raise Http404("Review item not found.")
    ids = {item.memory_id, item.other_memory_id} - {None}
    if memories_visible_to(user, item.tenant).filter(pk__in=ids).count() != len(ids):
        raise Http404("Review item not found.")
    if not can_review(user, item.tenant):
        raise PermissionDenied("Only a supervisor or an admin can decide review items.")
    return item
