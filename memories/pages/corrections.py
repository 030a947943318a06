"""The memory page's changes: correct and forget (whoever may write the memory), and undo
of a correction or a forget (supervisors). Forget is the API's ``DELETE /memories/{id}/``
service; correct and undo have one service each, for any door that comes.

Plain forms. Done, the answer is a redirect to the memory's page (the new memory's, for a
correction) with a message saying what happened; refused, the page again with a 4xx, the
form as it was sent and what to fix, and nothing changed.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from memories import permissions
from memories.errors import DomainError
from memories.pages.forms import CorrectionForm, ForgetForm, UndoForm
from memories.pages.views import memory_page
from memories.services.write.corrections import change_undo, memory_correct
from memories.services.write.lifecycle import memory_forget


def _errors(form) -> str:
    return " ".join(f"{form.fields[f].label}: {e}" for f, es in form.errors.items() for e in es)


@login_required
@require_POST
def memory_correct_page(request, memory_id):
    memory = permissions.memory_for_write(request.user, None, memory_id)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        return memory_page(
            request, memory, status=400, correction_form=form, change_error=_errors(form)
        )
    try:
        new = memory_correct(
            memory=memory,
            content=form.cleaned_data["content"],
            reason=form.cleaned_data["reason"],
            actor=request.user,
            actor_label=request.user.get_username(),
        )
    except DomainError as exc:
        return memory_page(
            request, memory, status=exc.status_code, correction_form=form, change_error=exc.message
        )
    messages.success(
        request,
        _(
            "Corrected. This is the new memory; the old one is superseded and no longer "
            "reaches search or context. A supervisor can undo the correction."
        ),
    )
    return redirect("memories:memory", new.pk)


@login_required
@require_POST
def memory_forget_page(request, memory_id):
    memory = permissions.memory_for_write(request.user, None, memory_id)
    form = ForgetForm(request.POST)
    if not form.is_valid():
        return memory_page(
            request, memory, status=400, forget_form=form, change_error=_errors(form)
        )
    memory_forget(
        memory=memory,
        actor=request.user,
        actor_label=request.user.get_username(),
        reason=form.cleaned_data["reason"],
    )
    messages.success(
        request, _("Forgotten: it no longer reaches search or context. A supervisor can undo it.")
    )
    return redirect("memories:memory", memory.pk)


@login_required
@require_POST
def memory_undo_page(request, memory_id):
    memory = permissions.memory_for_undo(request.user, None, memory_id)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return memory_page(request, memory, status=400, undo_error=_errors(form))
    try:
        restored = change_undo(
            memory=memory,
            entry_id=form.cleaned_data["entry"],
            reason=form.cleaned_data["reason"],
            actor=request.user,
            actor_label=request.user.get_username(),
        )
    except DomainError as exc:
        return memory_page(request, memory, status=exc.status_code, undo_error=exc.message)
    messages.success(
        request,
        _("Undone: this memory is %(status)s again.")
        % {"status": restored.get_status_display().lower()},
    )
    return redirect("memories:memory", restored.pk)
