"""The review queue: conflicts side by side and promotion candidates, decided one by one
or in bulk. The decisions go through the same service as the API."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from curation.forms import (
    KEEP_EARLIER,
    KEEP_LATER,
    BulkDecisionForm,
    DecisionForm,
    QueueFilterForm,
)
from curation.models import ReviewItem
from curation.selectors import clients_with_open_items, decision_effects, review_cards
from curation.selectors import open_items as queue_items
from curation.services.review import review_decide
from memories import permissions
from memories.errors import DomainError
from memories.templatetags.words import tier_name

ITEMS_PER_PAGE = 10
RECENT_DECISIONS = 8


def _reviewer(user) -> None:
    if not permissions.can_decide_reviews(user, None):
        raise PermissionDenied(permissions.REVIEWS_MESSAGE)


def _type(value: str | None) -> str:
    return value if value in ReviewItem.Type.values else ReviewItem.Type.CONFLICT


def _open_counts(user) -> dict:
    open_items = permissions.reviewable(user, ReviewItem.objects.all()).filter(
        state=ReviewItem.State.OPEN
    )
    return {t: open_items.filter(type=t).count() for t in ReviewItem.Type.values}


def _queue(request, item_type: str, bulk_form: BulkDecisionForm | None = None, **extra) -> dict:
    """The queue's context; ``bulk_form`` a bound form that was refused, shown again with
    the decision and the items the supervisor had chosen."""
    scope = permissions.reviewable(request.user, ReviewItem.objects.all())
    counts = _open_counts(request.user)
    filter_form = QueueFilterForm(request.GET, clients=clients_with_open_items(scope))
    items = queue_items(scope, item_type=item_type, **filter_form.query())
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    bulk = bulk_form or BulkDecisionForm(item_type=item_type, items=scope)
    recent = (
        scope.exclude(state=ReviewItem.State.OPEN)
        .select_related("client", "decided_by", "memory")
        .order_by("-decided_at", "-created_at")[:RECENT_DECISIONS]
    )
    return {
        "type": item_type,
        "counts": counts,
        "page": page,
        "cards": [
            replace(card, effects=decision_effects(card.item)) for card in review_cards(list(page))
        ],
        "filter_form": filter_form,
        "filter_qs": urlencode({"type": item_type, **filter_form.kept()}),
        "recent": recent,
        "bulk_form": bulk,
        "bulk_decision": bulk["decision"].value() or "",
        "selected": {str(pk) for pk in bulk_form["items"].value() or []} if bulk_form else set(),
        **extra,
    }


@login_required
def review_queue(request):
    _reviewer(request.user)
    context = _queue(request, _type(request.GET.get("type")))
    template = "curation/review_queue.html"
    if request.htmx and request.htmx.target == "queue":
        template += "#queue"
    return render(request, template, context)


@login_required
@require_POST
def review_decide_view(request, item_id):
    item = permissions.review_item_for_decision(request.user, ReviewItem.objects.all(), item_id)
    form = DecisionForm(request.POST, item_type=item.type)
    error = ""
    if form.is_valid():
        try:
            item = review_decide(
                item=item,
                decision=form.cleaned_data["decision"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
            )
        except DomainError as exc:
            error = exc.message
    else:
        # An ErrorList yields its messages as str; the stubs type the items it stores.
        error = " ".join(e for errors in form.errors.values() for e in errors)  # type: ignore[misc]
    if request.htmx:
        item = ReviewItem.objects.select_related(
            "client", "memory", "other_memory", "decided_by"
        ).get(pk=item.pk)
        [card] = review_cards([item])
        context = {"card": replace(card, outcome=_outcome(item)), "error": error}
        # The card in place, and the tab counts out of band.
        counts = {"counts": _open_counts(request.user), "oob": True}
        return HttpResponse(
            render_to_string("curation/review_queue.html#review-card", context, request)
            + render_to_string("curation/review_queue.html#count-conflict", counts, request)
            + render_to_string("curation/review_queue.html#count-promotion", counts, request)
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _outcome(item))
    return redirect(f"{reverse('curation:queue')}?type={item.type}")


def _outcome(item: ReviewItem) -> str:
    """What the decision did, in the words of the memories it changed."""
    if item.state == ReviewItem.State.OBSOLETE:
        return _("Nothing was changed: this item no longer applies (%(reason)s).") % {
            "reason": item.reason
        }
    words = {
        "new": f"“{item.memory.content}”",
        "old": f"“{item.other_memory.content}”" if item.other_memory else "",
        "tier": tier_name(item.memory.tier),
    }
    outcomes: dict[str, str] = {
        ReviewItem.Decision.ACCEPT_NEW: _(
            "Kept %(new)s; %(old)s is superseded and no longer appears in search or context."
        ),
        ReviewItem.Decision.KEEP_OLD: _(
            "Kept %(old)s; %(new)s is superseded and no longer appears in search or context."
        ),
        ReviewItem.Decision.KEEP_BOTH: _(
            "Both stay: %(old)s and %(new)s do not contradict each other."
        ),
        ReviewItem.Decision.MERGE: _(
            "%(new)s was merged into %(old)s, whose evidence now includes it."
        ),
        ReviewItem.Decision.APPROVE: _(
            "Approved: %(new)s is now promoted, so search and context rank it above equally "
            "relevant memories. Its tier stays %(tier)s: tiers follow use, or a supervisor "
            "sets one on the memory's page."
        ),
        ReviewItem.Decision.REJECT: _(
            "Rejected: %(new)s is no longer a candidate; it stays an active memory and "
            "nothing else changed."
        ),
    }
    return outcomes.get(item.decision, _("Decided.")) % words


def _decision_for(item: ReviewItem, chosen: str) -> str:
    """The bulk bar's "keep the earlier / the more recent" as this item's decision."""
    if chosen not in (KEEP_EARLIER, KEEP_LATER):
        return chosen
    [card] = review_cards([item])
    side = card.earlier if chosen == KEEP_EARLIER else card.later
    assert side is not None  # the bulk bar offers these two for conflicts only
    return side.keep


@login_required
@require_POST
def review_bulk(request):
    """One decision for many items of one type; each is its own transaction, so one that
    was decided meanwhile does not undo the others."""
    _reviewer(request.user)
    item_type = _type(request.POST.get("type"))
    scope = permissions.reviewable(request.user, ReviewItem.objects.all()).filter(
        type=item_type, state=ReviewItem.State.OPEN
    )
    form = BulkDecisionForm(request.POST, item_type=item_type, items=scope)
    results: list[tuple[ReviewItem, str]] = []
    error = ""
    refused = None
    if form.is_valid():
        for item in form.cleaned_data["items"]:
            try:
                decided = review_decide(
                    item=item,
                    decision=_decision_for(item, form.cleaned_data["decision"]),
                    reason=form.cleaned_data["reason"],
                    actor=request.user,
                )
            except DomainError as exc:
                results.append((item, exc.message))
            else:
                results.append((decided, _outcome(decided)))
    else:
        # An ErrorList yields its messages as str; the stubs type the items it stores.
        error = " ".join(e for errors in form.errors.values() for e in errors)  # type: ignore[misc]
        refused = form
    if request.htmx:
        context = _queue(
            request, item_type, refused, bulk_results=results, bulk_error=error, oob=True
        )
        return render(request, "curation/review_queue.html#queue", context)
    if refused is not None:
        # The page again with what was chosen, as the htmx answer does.
        context = _queue(request, item_type, refused, bulk_error=error)
        return render(request, "curation/review_queue.html", context)
    messages.success(
        request,
        ngettext("%(n)d item decided.", "%(n)d items decided.", len(results)) % {"n": len(results)},
    )
    return redirect(f"{reverse('curation:queue')}?type={item_type}")
