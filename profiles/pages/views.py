"""The client pages: the list, a client's page (profile, core memories, search, filters,
timeline), a supervisor's erasure of a client, and the read-only page a client or heir
sees of their own core memories.

Every view fetches through ``memories.permissions`` (404 for what the user may not see,
403 for what they may see but not do); an htmx fragment is checked in its own view.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST
from django_htmx.http import push_url

from curation.selectors import open_conflict_count
from memories import permissions
from memories.models import Client, Event, Memory, unexpired
from memories.pages.forms import STATUS_LIVE, MemoryFilterForm
from memories.selectors.assignment import advised
from memories.selectors.contradictions import has_contradictory_facts
from memories.selectors.when import when_told
from memories.services.client_data.erasure import client_erase
from memories.services.retrieval import memories_search
from memories.services.retrieval.floor import hits_matching
from profiles.pages.assign import assignment_panel
from profiles.pages.panels import attach_produced, client_panels
from profiles.services.context import coming_up, core_memories
from profiles.services.profile import profile_for

CLIENTS_PER_PAGE = 25
_BY_NAME = ("tenant__slug", "display_name", "external_ref")
CLIENT_SORTS = {
    "name": _BY_NAME,
    "memories": ("-live_memories", *_BY_NAME),
    "conflicts": ("-open_conflicts", "-shared_facts", *_BY_NAME),
    "heard": (F("last_event_at").desc(nulls_last=True), *_BY_NAME),
    "unassigned": ("advised", *_BY_NAME),
}
CLIENT_SORT_LABELS = {
    "name": gettext_lazy("Name"),
    "memories": gettext_lazy("Most memories"),
    "conflicts": gettext_lazy("Open conflicts first"),
    "heard": gettext_lazy("Last heard"),
    "unassigned": gettext_lazy("No advisor first"),
}
# Sorts for those who choose who advises a client.
ASSIGNING_SORTS = {"unassigned"}
SEARCH_RESULTS = 20
MEMORIES_PER_PAGE = 20
EVENTS_PER_PAGE = 30


@login_required
def client_list(request):
    user = request.user
    tenants = [
        t for t in permissions.tenants_visible_to(user) if permissions.can_browse_clients(user, t)
    ]
    if not tenants:
        if permissions.own_client(user) is not None:
            return redirect("profiles:mine")
        raise PermissionDenied(_("Your role has no clients to browse."))
    # No reference or name holds a NUL (PostgreSQL text cannot): it only breaks the query.
    query = request.GET.get("q", "").replace("\x00", "").strip()[:200]
    visible = Q()
    for tenant in tenants:
        visible |= Q(pk__in=permissions.clients_visible_to(user, tenant).values("pk"))
    clients = Client.objects.filter(visible)
    if query:
        clients = clients.filter(
            Q(display_name__icontains=query) | Q(external_ref__icontains=query)
        )
    # What the client page and the API count: live now, context past its expiry not
    # (whether or not the TTL sweep has marked it yet).
    live = (
        Memory.objects.current()
        .filter(client=OuterRef("pk"))
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
    assigns = any(permissions.has_perm(user, t, permissions.ASSIGN_CLIENTS) for t in tenants)
    sorts = {k: v for k, v in CLIENT_SORT_LABELS.items() if assigns or k not in ASSIGNING_SORTS}
    sort = request.GET.get("sort", "")
    sort = sort if sort in sorts else "name"
    clients = (
        clients.select_related("tenant")
        .annotate(
            live_memories=Coalesce(Subquery(live), 0),
            last_event_at=Subquery(last),
            open_conflicts=open_conflict_count(),
            shared_facts=has_contradictory_facts(),
            advised=advised(),
        )
        .order_by(*CLIENT_SORTS[sort])
    )
    page = Paginator(clients, CLIENTS_PER_PAGE).get_page(request.GET.get("page"))
    kept = {k: v for k, v in (("q", query), ("sort", sort if sort != "name" else "")) if v}
    context = {
        "page": page,
        "query": query,
        "sort": sort,
        "sorts": sorts,
        "assigns": assigns,
        "pager_qs": urlencode(kept),
        "many_tenants": len(tenants) > 1,
    }
    template = "profiles/client_list.html"
    if request.htmx and request.htmx.target == "client-rows":
        template += "#client-rows"
    return render(request, template, context)


@login_required
def client_detail(request, client_id):
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_read_history(request.user, client):
        return _core_page(request, client)
    context = {
        "client": client,
        "profile": profile_for(client),
        "core": core_memories(client),
        "coming_up": coming_up(client),
        "can_erase": permissions.can_erase_client(request.user, client),
        **client_panels(request.user, client),
        **assignment_panel(request.user, client),
        **_memory_results(request, client),
        **_timeline(request, client),
    }
    return render(request, "profiles/client_detail.html", context)


@login_required
def client_memories(request, client_id):
    """The memory list fragment: a search or the newest memories, filtered and paged.
    Opened directly (not by htmx), the whole client page with that list."""
    if not request.htmx:
        return client_detail(request, client_id)
    client = permissions.client_by_id_for_read(request.user, client_id)
    context = {"client": client, **_memory_results(request, client)}
    response = render(request, "profiles/client_detail.html#memory-results", context)
    page_url = reverse("profiles:client", args=[client.pk])
    push_url(response, f"{page_url}?{context['query_string']}".rstrip("?"))
    return response


@login_required
def client_timeline(request, client_id):
    """One page of the client's sessions and events (the raw record). Opened directly
    (not by htmx: a link copied, a page reloaded), the whole client page at that page."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_read_history(request.user, client):
        raise Http404("Client not found.")
    if not request.htmx:
        return client_detail(request, client_id)
    context = {"client": client, **_timeline(request, client)}
    return render(request, "profiles/client_detail.html#timeline", context)


@login_required
def my_memory(request):
    """What memory holds about the user themselves: their own core tier, read only."""
    client = permissions.own_client(request.user)
    if client is None:
        # An advisor, a supervisor or an admin has no memory of their own here: say where
        # theirs is (the clients they browse), not what a client should do.
        browses = any(
            permissions.can_browse_clients(request.user, tenant)
            for tenant in permissions.tenants_visible_to(request.user)
        )
        return render(
            request,
            "profiles/client_core.html",
            {"client": None, "core": (), "browses_clients": browses},
        )
    return _core_page(request, client)


def _core_page(request, client):
    return render(
        request, "profiles/client_core.html", {"client": client, "core": core_memories(client)}
    )


def _memory_results(request, client) -> dict:
    params = request.GET.copy()
    params.setdefault("status", STATUS_LIVE)
    form = MemoryFilterForm(params)
    if not form.is_valid():
        return {"form": form, "mode": "invalid", "items": [], "query_string": ""}
    data = form.cleaned_data
    query_string = urlencode(
        {k: v for k, v in form.data.items() if k != "page" and v and k in form.fields}
    )
    base = {"form": form, "query_string": query_string}
    if data["q"]:
        # The API's retrieval, as an agent would get it. A person browsing is not an agent
        # using the memory, so the access log (tier promotion's input) is not written.
        hits = memories_search(
            client=client,
            query=data["q"],
            k=SEARCH_RESULTS,
            filters=permissions.readable_filters(request.user, client, form.filters()),
            record_access=False,
        )
        # The search's own floor decides whether there is an answer at all; a person is
        # shown as matches only the hits that match by themselves, not the ranking's tail.
        hits = hits_matching(hits, client)
        return {**base, "mode": "search", "items": [_item(h.memory, h) for h in hits]}
    memories = (
        permissions.memories_visible_to(request.user, client.tenant)
        .filter(client=client, status__in=form.statuses())
        .order_by("-observed_at", "-created_at")
    )
    if (data["status"] or STATUS_LIVE) == STATUS_LIVE:
        memories = memories.filter(unexpired(timezone.now()))
    if data["kind"]:
        memories = memories.filter(kind=data["kind"])
    if data["tier"]:
        memories = memories.filter(tier=data["tier"])
    filters = form.filters()
    if filters.since:
        memories = memories.filter(observed_at__gte=filters.since)
    if filters.until:
        memories = memories.filter(observed_at__lte=filters.until)
    page = Paginator(memories, MEMORIES_PER_PAGE).get_page(data.get("page"))
    return {**base, "mode": "list", "page": page, "items": [_item(m) for m in page]}


def _item(memory, hit=None) -> dict:
    return {
        "memory": memory,
        "when": when_told(memory),  # said, and when it happens: past, ahead
        "score": hit.score if hit else None,
        "scores": hit.scores if hit else {},
    }


def _timeline(request, client) -> dict:
    events = Event.objects.filter(client=client).select_related("session").order_by("-observed_at")
    page = Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("events"))
    attach_produced(request.user, client, page.object_list)
    return {"events": page}


@login_required
@require_POST
def client_erase_page(request, client_id):
    """Erase a client (the API's ``DELETE /clients/{ref}/``, the same service). The form
    asks for the client's reference typed again: a slip of the mouse erases nothing."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_erase_client(request.user, client):
        raise PermissionDenied(_("Only a supervisor may erase a client."))
    if request.POST.get("confirm", "").strip() != client.external_ref:
        messages.error(request, _("Nothing was erased: type the client's reference to confirm."))
        return redirect(reverse("profiles:client", args=[client.pk]))
    ref = client.external_ref
    counts = client_erase(client=client, actor=request.user, actor_label=request.user.username)
    events, memories = counts.get("event", 0), counts.get("memory", 0)
    messages.success(
        request,
        _(
            "Erased %(ref)s: %(events)s and %(memories)s are gone; an audit tombstone without "
            "content remains."
        )
        % {
            "ref": ref,
            "events": ngettext("%(n)d event", "%(n)d events", events) % {"n": events},
            "memories": ngettext("%(n)d memory", "%(n)d memories", memories) % {"n": memories},
        },
    )
    return redirect(reverse("profiles:clients"))
