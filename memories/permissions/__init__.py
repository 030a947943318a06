"""Who may see and do what: the one place that answers it.

Every API view, page, admin queryset, export and job that acts for a user asks here.

Roles come from the tenant membership (``Membership.role``); advisor ↔ client assignments
are django-guardian object permissions (``memories.advise_client``, given to the user or
to one of their groups). A superuser is ADMIN in every tenant.

- ADMIN (a superuser): every tenant, and everything in it.
- SUPERVISOR: every client of their tenant; writes memory, overrides tiers, decides
  reviews, undoes corrections and forgets, runs evaluations, erases clients, chooses who
  advises each client, manages the tenant's API keys.
- ADVISOR: the clients assigned to them, and the memory of their own sessions (even
  after the client is unassigned); writes (corrects, forgets) the memory they see; a
  client they create by posting about it is assigned to them.
- CLIENT, PROSPECT: the live ``core`` tier of their own client record, read only.
- NEXTGEN_HEIR: the live ``core`` tier of their own client record, read only; never a
  parent's (a family link gives no access).

Three kinds of answer:

- ``can_*(user, obj) -> bool``: for a view deciding what to show (a button, a link).
- ``*_for_read`` / ``*_for_write`` / ``*_for_decision``: fetch one object for a user; they
  raise ``Http404`` when the user may not see it (the same answer as for a missing one,
  so ids and references cannot be probed) and ``PermissionDenied`` (403) when the user
  may see it but not do that. A role that may never do that (a client's key writing,
  an advisor deciding a review) gets its 403 before anything is looked up, whatever the
  id or reference: an answer that then varied would tell what exists.
- ``*_visible_to`` and ``scoped``: filter querysets to what a user may see. Lists are
  filtered, never checked row by row.

``roles`` names the permissions and reads a user's role; ``querysets`` filters lists;
``objects`` answers about one object and fetches it; ``curating`` answers for the pages'
corrections, forgets, undos and audit trail. Callers use this package's names.
"""

from __future__ import annotations

from memories.permissions.curating import (
    can_read_audit,
    can_undo_change,
    client_for_audit,
    memory_for_audit,
    memory_for_undo,
)
from memories.permissions.objects import (
    can_assign_client,
    can_browse_client,
    can_browse_clients,
    can_create_client,
    can_decide_review,
    can_decide_reviews,
    can_erase_client,
    can_export_client,
    can_import_client,
    can_manage_api_keys,
    can_manage_webhooks,
    can_override_tier,
    can_read_history,
    can_read_memory,
    can_run_evaluation,
    can_see_health_details,
    can_see_tenant,
    can_view_operations,
    can_view_review_queue,
    can_write_client_memory,
    can_write_memories,
    can_write_memory,
    client_by_id_for_assignment,
    client_by_id_for_read,
    client_for_assignment,
    client_for_erasure,
    client_for_export,
    client_for_read,
    client_for_write,
    clients_for_write,
    memory_for_read,
    memory_for_tier_override,
    memory_for_write,
    own_client,
    readable_filters,
    readable_statuses,
    readable_tiers,
    review_item_for_decision,
)
from memories.permissions.querysets import (
    clients_visible_to,
    memories_visible_to,
    reviewable,
    scoped,
    tenants_visible_to,
)
from memories.permissions.roles import (
    ADVISE_CLIENT,
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
    READ_MEMORY,
    READ_ONLY_MESSAGE,
    READ_ONLY_ROLES,
    READ_OWN_CORE,
    REVIEWS_MESSAGE,
    ROLE_PERMISSIONS,
    RUN_EVALUATION,
    SEE_ALL_CLIENTS,
    UNDO_CHANGE,
    VIEW_MEMBERS,
    VIEW_OPERATIONS,
    VIEW_REVIEWS,
    WRITE_MEMORY,
    WRITER_ROLES,
    has_perm,
    is_read_only,
    role_in,
    role_remember,
)

__all__ = [
    "ADVISE_CLIENT",
    "ASSIGN_CLIENTS",
    "ASSIGN_MESSAGE",
    "CREATE_CLIENT",
    "DECIDE_REVIEW",
    "ERASE_CLIENT",
    "EXPORT_CLIENT",
    "IMPORT_CLIENT",
    "MANAGE_API_KEYS",
    "MANAGE_WEBHOOKS",
    "OVERRIDE_TIER",
    "READ_MEMORY",
    "READ_ONLY_MESSAGE",
    "READ_ONLY_ROLES",
    "READ_OWN_CORE",
    "REVIEWS_MESSAGE",
    "ROLE_PERMISSIONS",
    "RUN_EVALUATION",
    "SEE_ALL_CLIENTS",
    "UNDO_CHANGE",
    "VIEW_MEMBERS",
    "VIEW_OPERATIONS",
    "VIEW_REVIEWS",
    "WRITER_ROLES",
    "WRITE_MEMORY",
    "can_assign_client",
    "can_browse_client",
    "can_browse_clients",
    "can_create_client",
    "can_decide_review",
    "can_decide_reviews",
    "can_erase_client",
    "can_export_client",
    "can_import_client",
    "can_manage_api_keys",
    "can_manage_webhooks",
    "can_override_tier",
    "can_read_audit",
    "can_read_history",
    "can_read_memory",
    "can_run_evaluation",
    "can_see_health_details",
    "can_see_tenant",
    "can_undo_change",
    "can_view_operations",
    "can_view_review_queue",
    "can_write_client_memory",
    "can_write_memories",
    "can_write_memory",
    "client_by_id_for_assignment",
    "client_by_id_for_read",
    "client_for_assignment",
    "client_for_audit",
    "client_for_erasure",
    "client_for_export",
    "client_for_read",
    "client_for_write",
    "clients_for_write",
    "clients_visible_to",
    "has_perm",
    "is_read_only",
    "memories_visible_to",
    "memory_for_audit",
    "memory_for_read",
    "memory_for_tier_override",
    "memory_for_undo",
    "memory_for_write",
    "own_client",
    "readable_filters",
    "readable_statuses",
    "readable_tiers",
    "review_item_for_decision",
    "reviewable",
    "role_in",
    "role_remember",
    "scoped",
    "tenants_visible_to",
]
