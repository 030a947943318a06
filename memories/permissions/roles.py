"""Named permissions, the roles that carry them, and a user's role in a tenant."""

from __future__ import annotations

from typing import TypeAlias
from uuid import UUID

from django.utils.translation import gettext_lazy as _

from memories.models import (
    Membership,
    Role,
    Tenant,
)

# A tenant, or only its id: the role lookups need no more than the id, and callers that
# hold an object with ``tenant_id`` pass that rather than load the tenant.
TenantRef: TypeAlias = "Tenant | UUID"

# --- Named permissions ---------------------------------------------------------------

ADVISE_CLIENT = "advise_client"  # the guardian object permission: advisor ↔ client

READ_MEMORY = "read_memory"  # read the memory of the clients one sees
READ_OWN_CORE = "read_own_core"  # read the live core tier of one's own client record
WRITE_MEMORY = "write_memory"  # post events, correct, forget, give feedback
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
MANAGE_WEBHOOKS = "manage_webhooks"  # register webhook endpoints, see their deliveries
VIEW_MEMBERS = "view_members"  # who belongs to the tenant, in which role
VIEW_OPERATIONS = "view_operations"  # job runs and the audit trail
UNDO_CHANGE = "undo_change"  # restore what a correction or a forget changed
ASSIGN_CLIENTS = "assign_clients"  # choose the advisors (and groups) who advise a client

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
        MANAGE_WEBHOOKS,
        VIEW_MEMBERS,
        VIEW_OPERATIONS,
        UNDO_CHANGE,
        ASSIGN_CLIENTS,
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
READ_ONLY_MESSAGE = _("This role has read-only access to memory.")
REVIEWS_MESSAGE = _("The review queue is for supervisors and admins.")
ASSIGN_MESSAGE = _("Only a supervisor may choose who advises a client.")


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


def _tenant_id(tenant: TenantRef) -> UUID:
    return tenant.pk if isinstance(tenant, Tenant) else tenant


def role_in(user, tenant: TenantRef) -> str | None:
    """The user's role in ``tenant`` (superusers are ADMIN everywhere), or None."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN
    return _roles(user).get(_tenant_id(tenant))


def has_perm(user, tenant: TenantRef, permission: str) -> bool:
    """Whether ``user``'s role in ``tenant`` carries the named ``permission``."""
    return permission in ROLE_PERMISSIONS.get(role_in(user, tenant) or "", frozenset())


def is_read_only(user, tenant: TenantRef) -> bool:
    return role_in(user, tenant) in READ_ONLY_ROLES
