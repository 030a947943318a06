"""Who advises a client, chosen on its page by a supervisor: the same service as ``PUT
/api/v1/clients/{ref}/advisors/`` (``memories.services.tenancy.clients``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from memories import permissions
from memories.errors import DomainError
from memories.selectors.assignment import client_assignment, tenant_advisors, tenant_groups
from memories.services.tenancy.clients import client_assignment_set
from profiles.pages.forms import AssignmentForm


def assignment_panel(user, client, data=None) -> dict:
    """The client page's context for the advisors panel: empty for whoever may not choose."""
    if not permissions.can_assign_client(user, client):
        return {}
    now = client_assignment(client)
    advisors = sorted({*tenant_advisors(client.tenant_id).values_list("username", flat=True)})
    groups = sorted({*tenant_groups(client.tenant_id).values_list("name", flat=True)})
    form = AssignmentForm(
        data,
        advisors=sorted({*advisors, *now.advisors}),
        groups=sorted({*groups, *now.groups}),
        initial=now.as_dict(),
    )
    return {"assignment": now, "assignment_form": form}


@login_required
@require_POST
def client_advisors_page(request, client_id):
    client = permissions.client_by_id_for_assignment(request.user, client_id)
    form = assignment_panel(request.user, client, request.POST)["assignment_form"]
    error = notice = ""
    if form.is_valid():
        try:
            client_assignment_set(
                client=client,
                advisors=form.cleaned_data["advisors"],
                groups=form.cleaned_data["groups"],
                actor=request.user,
                actor_label=request.user.get_username(),
            )
        except DomainError as exc:
            error = exc.message
        else:
            notice = _("Saved: the advisors ticked see this client from now on.")
    else:
        error = _("Nothing was changed: choose advisors and groups from the lists.")
    if request.htmx:
        context = {"client": client, **assignment_panel(request.user, client)}
        context.update(notice=notice, error=error)
        return render(request, "profiles/client_advisors.html#advisors-panel", context)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)
    return redirect(reverse("profiles:client", args=[client.pk]))
