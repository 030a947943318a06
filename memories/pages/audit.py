"""The audit trail in the app: who changed what and why, for one memory or one client,
each entry linking to the memories it names (those the reader may see). Readers: whoever
reads the client's whole record (``permissions.can_read_audit``); supervisors also get
an undo button beside each correction and forget that was not undone."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_safe

from memories import permissions
from memories.pages.forms import UndoForm
from memories.selectors.audit import audit_rows, client_audit, memory_audit

ENTRIES_PER_PAGE = 50


@require_safe
@login_required
def memory_audit_page(request, memory_id):
    memory = permissions.memory_for_audit(request.user, memory_id)
    rows = audit_rows(request.user, memory.tenant_id, memory_audit(memory))
    return render(
        request,
        "memories/audit.html",
        {
            "memory": memory,
            "client": memory.client,
            "rows": rows,
            "can_undo": permissions.can_undo_change(request.user, memory),
            "undo_form": UndoForm(),
        },
    )


@require_safe
@login_required
def client_audit_page(request, client_id):
    client = permissions.client_for_audit(request.user, client_id)
    page = Paginator(client_audit(client), ENTRIES_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "memories/audit.html",
        {
            "memory": None,
            "client": client,
            "page": page,
            "rows": audit_rows(request.user, client.tenant_id, page),
            "can_undo": permissions.has_perm(
                request.user, client.tenant_id, permissions.UNDO_CHANGE
            ),
            "undo_form": UndoForm(),
        },
    )
