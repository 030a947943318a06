"""Forms of the client pages: they validate browser input; the services do the work."""

from __future__ import annotations

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
