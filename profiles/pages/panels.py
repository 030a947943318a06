"""The client page's panels beyond memory and timeline: what needs the advisor's attention
(open conflicts, several live facts about one thing), what the agent will read for a
message (the context call's ``text``, within its budget), the memories each event of the
timeline produced, and a supervisor's export of the whole client.

Every view fetches through ``memories.permissions`` (404 for what the user may not see,
403 for what they may see but not do).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from curation.selectors import open_conflicts
from memories import permissions
from memories.models import Evidence
from memories.selectors.contradictions import contradictory_facts
from memories.services.client_data.export import client_export
from profiles.pages.forms import PREVIEW_BUDGET, ContextPreviewForm
from profiles.services.context import context_build


def client_panels(user, client) -> dict:
    """The client page's context for these panels."""
    return {
        "conflicts": open_conflicts(client),
        "shared_facts": contradictory_facts(client),
        "can_decide": permissions.can_decide_review(user, client.tenant),
        "can_export": permissions.can_export_client(user, client),
        "can_read_audit": permissions.can_read_audit(user, client),
        "preview_form": ContextPreviewForm(initial={"budget_chars": PREVIEW_BUDGET}),
    }


def _staff_client(request, client_id):
    """The client, for those who read its whole record; 404 for anyone else (a client's
    own login sees its core memories only)."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_read_history(request.user, client):
        raise Http404("Client not found.")
    return client


@require_safe
@login_required
def client_context_preview(request, client_id):
    """What ``POST /api/v1/context/`` answers an agent for this message: the same service,
    reads not counted as an agent's use."""
    client = _staff_client(request, client_id)
    form = ContextPreviewForm(request.GET)
    context: dict = {"client": client, "preview_form": form}
    if form.is_valid():
        budget = form.cleaned_data["budget_chars"]
        built = context_build(
            user=request.user,
            client=client,
            message=form.cleaned_data["message"],
            budget_chars=budget,
            record_access=False,
        )
        context["preview"] = {**built, "budget": budget, "used": len(built["text"])}
    if request.htmx:  # the result in place; htmx swaps no 4xx, so errors come as 200
        return render(request, "profiles/context_preview.html#preview-result", context)
    return render(
        request, "profiles/context_preview.html", context, status=200 if form.is_valid() else 400
    )


@require_safe
@login_required
def client_export_page(request, client_id):
    """The API's export document (``GET /api/v1/clients/{ref}/export/``, the same service),
    as a file to download: supervisors and admins."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_export_client(request.user, client):
        raise PermissionDenied(_("Only a supervisor may export a client's data."))
    response = JsonResponse(client_export(client=client), encoder=DjangoJSONEncoder)
    filename = f"{client.external_ref}-export.json".replace('"', "")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def attach_produced(user, client, events) -> None:
    """Set ``produced`` on each event: the memories (those ``user`` may see) that it gave
    rise to or restated, with what it did to each, in one query."""
    visible = permissions.memories_visible_to(user, client.tenant).filter(client=client)
    rows = (
        Evidence.objects.filter(event__in=list(events), memory__in=visible)
        .exclude(role=Evidence.Role.CONSOLIDATED)
        .select_related("memory")
        .order_by("created_at", "pk")
    )
    by_event: dict = {}
    for evidence in rows:
        by_event.setdefault(evidence.event_id, []).append(evidence)
    for event in events:
        setattr(event, "produced", by_event.get(event.pk, []))  # noqa: B010 (not a field)
