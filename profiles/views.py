"""The client's page (profile, core memories, search, filters, timeline) and the read-only
page a client or heir sees of their own core memories."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django_htmx.http import push_url

from memories import permissions
from memories.forms import STATUS_LIVE, MemoryFilterForm
from memories.models import Event
from memories.services.retrieval import memories_search
from profiles.services.context import core_memories
from profiles.services.profile import profile_for

SEARCH_RESULTS = 20
MEMORIES_PER_PAGE = 20
EVENTS_PER_PAGE = 30


@login_required
def client_detail(request, client_id):
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_read_history(request.user, client):
        return _core_page(request, client)
    context = {
        "client": client,
        "profile": profile_for(client),
        "core": core_memories(client),
        "can_erase": permissions.can_erase_client(request.user, client),
        **_memory_results(request, client),
        **_timeline(request, client),
    }
    return render(request, "profiles/client_detail.html", context)


@login_required
def client_memories(request, client_id):
    """The memory list fragment: a search or the newest memories, filtered and paged."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    context = {"client": client, **_memory_results(request, client)}
    response = render(request, "profiles/client_detail.html#memory-results", context)
    if request.htmx:
        page_url = reverse("profiles:client", args=[client.pk])
        push_url(response, f"{page_url}?{context['query_string']}".rstrip("?"))
    return response


@login_required
def client_timeline(request, client_id):
    """One page of the client's sessions and events (the raw record)."""
    client = permissions.client_by_id_for_read(request.user, client_id)
    if not permissions.can_read_history(request.user, client):
        raise Http404("Client not found.")
    context = {"client": client, **_timeline(request, client)}
    return render(request, "profiles/client_detail.html#timeline", context)


@login_required
def my_memory(request):
    """What memory holds about the user themselves: their own core tier, read only."""
    client = permissions.own_client(request.user)
    if client is None:
        return render(request, "profiles/client_core.html", {"client": None, "core": []})
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
            filters=form.filters(readable_tiers=permissions.readable_tiers(request.user, client)),
            record_access=False,
        )
        return {**base, "mode": "search", "items": [_item(h.memory, h) for h in hits]}
    memories = (
        permissions.memories_visible_to(request.user, client.tenant)
        .filter(client=client, status__in=form.statuses())
        .order_by("-observed_at", "-created_at")
    )
    if (data["status"] or STATUS_LIVE) == STATUS_LIVE:
        memories = memories.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
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
        "score": hit.score if hit else None,
        "scores": hit.scores if hit else {},
    }


def _timeline(request, client) -> dict:
    events = Event.objects.filter(client=client).select_related("session").order_by("-observed_at")
    return {"events": Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("events"))}
