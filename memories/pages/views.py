"""Pages: home, and a memory's page (with its tier override).

Every view fetches through ``memories.permissions`` (404 for what the user may not see,
403 for what they may see but not do); an htmx fragment is checked in its own view.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from memories import permissions
from memories.errors import DomainError
from memories.models import LIVE_STATUSES, Evidence, Membership
from memories.pages.forms import CorrectionForm, ForgetForm, TierForm, UndoForm
from memories.selectors.audit import pending_undo
from memories.selectors.lineage import lineage_of
from memories.selectors.memory import linked_for, status_change
from memories.selectors.when import when_told
from memories.services.write.lifecycle import memory_set_tier
from memories.templatetags.words import tier_name

# How a relation reads from the memory at its target ("A updates B": B "is updated by" A).
RELATION_LABELS = {
    "out": {
        "updates": gettext_lazy("updates"),
        "extends": gettext_lazy("extends"),
        "derives": gettext_lazy("derives from"),
        "merged_into": gettext_lazy("was merged into"),
        "conflicts_with": gettext_lazy("conflicts with"),
    },
    "in": {
        "updates": gettext_lazy("is updated by"),
        "extends": gettext_lazy("is extended by"),
        "derives": gettext_lazy("is a source of"),
        "merged_into": gettext_lazy("absorbed"),
        "conflicts_with": gettext_lazy("conflicts with"),
    },
}


@require_safe
@login_required
def home(request):
    memberships = Membership.objects.filter(user=request.user).select_related("tenant")
    return render(request, "memories/home.html", {"memberships": memberships})


@login_required
def memory_detail(request, memory_id):
    return memory_page(request, permissions.memory_for_read(request.user, None, memory_id))


def memory_page(request, memory, *, status: int = 200, **changes):
    """The memory's page; ``changes`` the correct / forget / undo panel's bound forms and
    error, when a post of one of them is refused (``correction_views``)."""
    user = request.user
    visible = permissions.memories_visible_to(user, memory.tenant)
    linked = linked_for(user, memory)
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
        "past": memory.is_past(timezone.now()),
        "when": when_told(memory),  # in the words of the client page's list
        "client": memory.client,
        "evidence": evidence,
        "show_evidence": history,
        "versions": linked.versions,
        "relations": [
            {**r, "label": RELATION_LABELS[r["direction"]].get(r["type"], r["type"])}
            for r in linked.relations
        ],
        "lineage": lineage_of(memory, visible=visible),
        "change": status_change(user, memory, linked),
        **_tier_context(user, memory),
        **_changes_context(user, memory, **changes),
    }
    return render(request, "memories/memory_detail.html", context, status=status)


def _changes_context(user, memory, **bound) -> dict:
    """The correct and forget forms for those who may write a live memory; the undo of its
    latest correction or forget for supervisors; the audit trail's link for its readers."""
    undo = pending_undo(memory) if permissions.can_undo_change(user, memory) else None
    return {
        "can_change": memory.status in LIVE_STATUSES and permissions.can_write_memory(user, memory),
        "can_read_audit": permissions.can_read_audit(user, memory.client),
        # Today's text to edit: most corrections change a word or a date, not everything.
        "correction_form": CorrectionForm(initial={"content": memory.content}),
        "forget_form": ForgetForm(),
        "undo_form": UndoForm(initial={"entry": undo.pk} if undo else None),
        "undo_entry": undo,
        **bound,
    }


def _tier_context(user, memory, form=None, **extra) -> dict:
    return {
        "memory": memory,
        # A memory out of every answer has no tier to set (memory_set_tier refuses it).
        "can_override_tier": permissions.can_override_tier(user, memory) and memory.is_latest,
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
            moved = {"old": tier_name(previous), "new": tier_name(memory.tier)}
            notice = (
                _("Moved from %(old)s to %(new)s and pinned.")
                if memory.tier_pinned
                else _("Moved from %(old)s to %(new)s.")
            ) % moved
            form = None
    else:
        error = _("Choose a tier from the list.")
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
