"""Pages: home, the client list, a memory's page (with its tier override), and a
supervisor's erasure of a client.

Every view fetches through ``memories.permissions`` (404 for what the user may not see,
403 for what they may see but not do); an htmx fragment is checked in its own view.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from memories import permissions
from memories.api_errors import DomainError
from memories.forms import TierForm
from memories.models import LIVE_STATUSES, Client, Event, Evidence, Membership, Memory
from memories.selectors_lineage import lineage_of
from memories.selectors_memory import relations_of, versions_of
from memories.services.erasure import client_erase
from memories.services.tiers import memory_set_tier

CLIENTS_PER_PAGE = 25
# How a relation reads from the memory at its target ("A updates B": B "is updated by" A).
RELATION_LABELS = {
    "out": {
        "updates": "updates",
        "extends": "extends",
        "derives": "derives from",
        "merged_into": "was merged into",
        "conflicts_with": "conflicts with",
    },
    "in": {
        "updates": "is updated by",
        "extends": "is extended by",
        "derives": "is a source of",
        "merged_into": "absorbed",
        "conflicts_with": "conflicts with",
    },
}


@require_safe
@login_required
def home(request):
    memberships = Membership.objects.filter(user=request.user).select_related("tenant")
    return render(request, "memories/home.html", {"memberships": memberships})


@login_required
def client_list(request):
    user = request.user
    tenants = [
        t for t in permissions.tenants_visible_to(user) if permissions.can_browse_clients(user, t)
    ]
    if not tenants:
        if permissions.own_client(user) is not None:
            return redirect("profiles:mine")
        raise PermissionDenied("Your role has no clients to browse.")
    query = request.GET.get("q", "").strip()[:200]
    visible = Q()
    for tenant in tenants:
        visible |= Q(pk__in=permissions.clients_visible_to(user, tenant).values("pk"))
    clients = Client.objects.filter(visible)
    if query:
        clients = clients.filter(
            Q(display_name__icontains=query) | Q(external_ref__icontains=query)
        )
    live = (
        Memory.objects.filter(client=OuterRef("pk"), status__in=LIVE_STATUSES)
        .order_by()
        .values("client")
        .annotate(n=Count("pk"))
        .values("n")
    )
    last = (
        Event.objects.filter(client=OuterRef("pk"))
        .order_by("-observed_at")
        .values("observed_at")[:1]
    )
    clients = (
        clients.select_related("tenant")
        .annotate(live_memories=Coalesce(Subquery(live), 0), last_event_at=Subquery(last))
        .order_by("tenant__slug", "display_name", "external_ref")
    )
    page = Paginator(clients, CLIENTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "query": query,
        "pager_qs": urlencode({"q": query}) if query else "",
        "many_tenants": len(tenants) > 1,
    }
    template = "memories/client_list.html"
    if request.htmx and request.htmx.target == "client-rows":
        template += "#client-rows"
    return render(request, template, context)


@login_required
def memory_detail(request, memory_id):
    user = request.user
    memory = permissions.memory_for_read(user, None, memory_id)
    visible = permissions.memories_visible_to(user, memory.tenant)
    versions = versions_of(memory)
    relations = relations_of(memory)
    linked = {v.pk for v in versions} | {r["memory"].pk for r in relations}
    shown = set(visible.filter(pk__in=linked).values_list("pk", flat=True))
    history = permissions.can_read_history(user, memory.client)
    evidence = []
    if history:
        evidence = list(
            Evidence.objects.filter(memory=memory)
            .select_related("event", "event__session")
            .order_by("event__observed_at")
        )
    context = {
        "memory": memory,
        "client": memory.client,
        "evidence": evidence,
        "show_evidence": history,
        "versions": [v for v in versions if v.pk in shown],
        "relations": [
            {**r, "label": RELATION_LABELS[r["direction"]].get(r["type"], r["type"])}
            for r in relations
            if r["memory"].pk in shown
        ],
        "lineage": lineage_of(memory, visible=visible),
        **_tier_context(user, memory),
    }
    return render(request, "memories/memory_detail.html", context)


def _tier_context(user, memory, form=None, **extra) -> dict:
    return {
        "memory": memory,
        "can_override_tier": permissions.can_override_tier(user, memory),
        "tier_form": form or TierForm(initial={"tier": memory.tier, "pin": True}),
        **extra,
    }


@login_required
@require_POST
def memory_tier(request, memory_id):
    """Tier override by a supervisor (the same service the tier jobs use)."""
    memory = permissions.memory_for_tier_override(request.user, None, memory_id)
    form: TierForm | None  # None once saved: the panel then shows a fresh form
    form = TierForm(request.POST)
    error = notice = ""
    if form.is_valid():
        previous = memory.tier
        try:
            memory = memory_set_tier(
                memory=memory,
                tier=form.cleaned_data["tier"],
                pin=form.cleaned_data["pin"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
                actor_label=request.user.get_username(),
            )
        except DomainError as exc:
            error = exc.message
        else:
            notice = f"Moved from {previous} to {memory.tier}" + (
                " and pinned." if memory.tier_pinned else "."
            )
            form = None
    else:
        error = "Choose a tier from the list."
    if request.htmx:
        context = _tier_context(request.user, memory, form, error=error, notice=notice)
        # The panel in place, and the tier badge at the top of the page out of band.
        return HttpResponse(
            render_to_string("memories/memory_detail.html#tier-panel", context, request)
            + render_to_string(
                "memories/memory_detail.html#memory-badges", {**context, "oob": True}, request
            )
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)
    return redirect(reverse("memories:memory", args=[memory.pk]))


@login_required
@require_POST
def client_erase_page(request, client_id):
    """Erase a client (the API's ``DELETE /clients/{ref}/``, the same service). The form
    asks for the client's reference typed again: a slip of the mouse erases nothing."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_erase_client(request.user, client):
        raise PermissionDenied("Only a supervisor may erase a client.")
    if request.POST.get("confirm", "").strip() != client.external_ref:
        messages.error(request, "Nothing was erased: type the client's reference to confirm.")
        return redirect(reverse("profiles:client", args=[client.pk]))
    ref = client.external_ref
    counts = client_erase(client=client, actor=request.user, actor_label=request.user.username)
    messages.success(
        request,
        f"Erased {ref}: {counts.get('event', 0)} events and {counts.get('memory', 0)} "
        "memories are gone; an audit tombstone without content remains.",
    )
    return redirect(reverse("memories:clients"))
