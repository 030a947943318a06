"""Forms of the client pages: they validate browser input; the services do the work."""

from __future__ import annotations

from typing import cast

from django import forms
from django.utils.translation import gettext_lazy as _

PREVIEW_BUDGET = 2000  # the API's default budget_chars


class ContextPreviewForm(forms.Form):
    """A message as an agent would send it to ``POST /api/v1/context/``, and its budget:
    the same limits as the API's."""

    message = forms.CharField(
        label=_("Message to the agent"),
        max_length=8000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    budget_chars = forms.IntegerField(
        label=_("Budget (characters)"), min_value=200, max_value=50_000, initial=PREVIEW_BUDGET
    )


class AssignmentForm(forms.Form):
    """Who advises a client: the tenant's advisors and groups, ticked (``PUT
    /api/v1/clients/{ref}/advisors/`` takes the same lists)."""

    advisors = forms.MultipleChoiceField(
        label=_("Advisors"), required=False, widget=forms.CheckboxSelectMultiple
    )
    groups = forms.MultipleChoiceField(
        label=_("Groups"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, advisors=(), groups=(), **kwargs):
        super().__init__(*args, **kwargs)
        field = cast(forms.MultipleChoiceField, self.fields["advisors"])
        field.choices = [(name, name) for name in advisors]
        field = cast(forms.MultipleChoiceField, self.fields["groups"])
        field.choices = [(name, name) for name in groups]
