"""Review decisions as the browser sends them."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from curation.models import ReviewItem
from curation.selectors import DEFAULT_SORT, SORT_LABELS
from memories.models import Kind

# What to do, as a choice says it (the model's labels say what was done).
CONFLICT_CHOICES = [
    (ReviewItem.Decision.KEEP_OLD.value, _("Keep old")),
    (ReviewItem.Decision.ACCEPT_NEW.value, _("Accept new")),
    (ReviewItem.Decision.KEEP_BOTH.value, _("Keep both")),
    (ReviewItem.Decision.MERGE.value, _("Merge")),
]
# The bulk bar speaks as the cards do, by when each side was said; each item's decision is
# then the one that keeps that side of it (``review_bulk``).
KEEP_EARLIER, KEEP_LATER = "keep_earlier", "keep_later"
BULK_CONFLICT_CHOICES = [
    (KEEP_EARLIER, _("Keep the earlier")),
    (KEEP_LATER, _("Keep the more recent")),
    *CONFLICT_CHOICES[2:],
]
PROMOTION_CHOICES = [
    (ReviewItem.Decision.APPROVE.value, _("Approve")),
    (ReviewItem.Decision.REJECT.value, _("Reject")),
]


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[*CONFLICT_CHOICES, *PROMOTION_CHOICES])
    reason = forms.CharField(label=_("Reason"), required=False, max_length=2000, strip=True)

    def __init__(self, *args, item_type: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.item_type = item_type
        cast(forms.ChoiceField, self.fields["decision"]).choices = (
            CONFLICT_CHOICES if item_type == ReviewItem.Type.CONFLICT else PROMOTION_CHOICES
        )

    def clean(self):
        # The stubs allow None (an override may return it); Form.clean returns cleaned_data.
        data = cast(dict[str, Any], super().clean())
        if data.get("decision") == ReviewItem.Decision.REJECT and not data.get("reason"):
            self.add_error(
                "reason", _("Say why you reject it: the reason goes in the audit trail.")
            )
        return data


class BulkDecisionForm(DecisionForm):
    items = forms.ModelMultipleChoiceField(
        queryset=ReviewItem.objects.none(),
        error_messages={
            "required": _("Select at least one item first (the boxes beside each item)."),
            "invalid_choice": _(
                "An item you selected was decided meanwhile: reload the queue and select again."
            ),
        },
    )

    def __init__(self, *args, items, **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ModelMultipleChoiceField, self.fields["items"]).queryset = items
        if self.item_type == ReviewItem.Type.CONFLICT:
            cast(forms.ChoiceField, self.fields["decision"]).choices = BULK_CONFLICT_CHOICES
            # What each card recommends (its one primary button): the more recent.
            self.fields["decision"].initial = KEEP_LATER


class QueueFilterForm(forms.Form):
    """What the queue shows: one client's items, one kind of memory, in which order."""

    client = forms.ChoiceField(label=_("Client"), required=False)
    kind = forms.ChoiceField(label=_("Kind of memory"), required=False)
    sort = forms.ChoiceField(label=_("Order"), required=False)

    def __init__(self, *args, clients, **kwargs):
        super().__init__(*args, **kwargs)
        self.clients = clients
        cast(forms.ChoiceField, self.fields["client"]).choices = [("", _("Every client"))] + [
            (str(c.pk), str(c)) for c in clients
        ]
        cast(forms.ChoiceField, self.fields["kind"]).choices = [("", _("Any kind")), *Kind.choices]
        cast(forms.ChoiceField, self.fields["sort"]).choices = list(SORT_LABELS.items())
        self.fields["sort"].initial = DEFAULT_SORT

    def query(self) -> dict:
        """``curation.selectors.open_items``' filters from what was chosen (nothing valid:
        every client, any kind, recommended first)."""
        data = self.cleaned_data if self.is_valid() else {}
        client_id = data.get("client") or ""
        return {
            "client": next((c for c in self.clients if str(c.pk) == client_id), None),
            "kind": data.get("kind") or "",
            "sort": data.get("sort") or DEFAULT_SORT,
        }

    def kept(self) -> dict:
        """The chosen filters as query parameters, for the pager and the tabs."""
        data = self.cleaned_data if self.is_valid() else {}
        return {k: data[k] for k in ("client", "kind", "sort") if data.get(k)}
