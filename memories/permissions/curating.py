"""Who may correct, forget and undo from the pages, and who reads the audit trail there.

- Correct and forget: whoever may write the memory (advisors of the client, supervisors,
  admins): ``memory_for_write``, the API's forget door too.
- Undo a correction or a forget: supervisors and admins (``UNDO_CHANGE``).
- The audit trail of one memory or one client: whoever reads that client's whole record
  (``can_read_history``: advisors of the client, supervisors, admins), and only the entries
  about the client, its memories and its review items. The tenant-wide trail stays with
  ``VIEW_OPERATIONS`` (the admin).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from memories.models import Client, Memory, Tenant
from memories.permissions.objects import (
    can_browse_client,
    can_read_history,
    can_read_memory,
    client_by_id_for_read,
    memory_for_read,
)
from memories.permissions.roles import READ_MEMORY, UNDO_CHANGE, has_perm


def can_undo_change(user, memory: Memory) -> bool:
    """May restore what a correction or a forget of this memory changed."""
    return has_perm(user, memory.tenant_id, UNDO_CHANGE) and can_read_memory(user, memory)


def can_read_audit(user, client: Client) -> bool:
    """May read the audit trail of this client and its memories."""
    return (
        has_perm(user, client.tenant_id, READ_MEMORY)
        and can_read_history(user, client)
        and can_browse_client(user, client)
    )


def memory_for_undo(user, tenant: Tenant | None, memory_id) -> Memory:
    """The memory if ``user`` may undo a change of it; 404 if they may not see it, 403 if
    they may see it but not undo (advisors, and read-only roles)."""
    memory = memory_for_read(user, tenant, memory_id)
    if not can_undo_change(user, memory):
        raise PermissionDenied(_("Only a supervisor may undo a correction or a forget."))
    return memory


def memory_for_audit(user, memory_id) -> Memory:
    """The memory if ``user`` may read its audit trail, else 404 (a client's own login
    reads its core memories, not who changed them: the same answer as for a missing one)."""
    memory = memory_for_read(user, None, memory_id)
    if not can_read_audit(user, memory.client):
        raise Http404("Memory not found.")
    return memory


def client_for_audit(user, client_id) -> Client:
    """The client (by id, pages) if ``user`` may read its audit trail, else 404."""
    client = client_by_id_for_read(user, client_id)
    if not can_read_audit(user, client):
        raise Http404("Client not found.")
    return client
