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
