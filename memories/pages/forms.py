"""Forms of the pages: they validate browser input; the services do the work."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any, cast

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memories.models import LIVE_STATUSES, Kind, Status, Tier
from memories.services.retrieval import Filters
from memories.timebounds import EARLIEST_DAY, too_early

TIER_NAMES = [(Tier.CORE, _("Core")), (Tier.RECALL, _("Recall")), (Tier.ARCHIVAL, _("Archival"))]
STATUS_LIVE = "live"
STATUS_ALL = "all"


class MemoryFilterForm(forms.Form):
    """What the client page's memory list shows: a search (the API's ranking) or the
    newest memories, filtered by kind, tier, status and time."""

    q = forms.CharField(label=_("Search"), required=False, max_length=500, strip=True)
    kind = forms.ChoiceField(
        label=_("Kind"), required=False, choices=[("", _("Any kind")), *Kind.choices]
    )
    tier = forms.ChoiceField(
        label=_("Tier"), required=False, choices=[("", _("Any tier")), *TIER_NAMES]
    )
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[(STATUS_LIVE, _("Live")), *Status.choices, (STATUS_ALL, _("Any status"))],
    )
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def clean(self):
        # The stubs allow None (an override may return it); Form.clean returns cleaned_data.
        data = cast(dict[str, Any], super().clean())
        since, until = data.get("since"), data.get("until")
        for name, day in (("since", since), ("until", until)):
            if day and too_early(day):
                self.add_error(
                    name, _("Memory starts on %(day)s.") % {"day": EARLIEST_DAY.isoformat()}
                )
        if since and until and since > until:
            self.add_error("until", _("The end date is before the start date: swap them."))
        return data

    def statuses(self) -> tuple[str, ...]:
        status = self.cleaned_data.get("status") or STATUS_LIVE
        if status == STATUS_LIVE:
            return tuple(LIVE_STATUSES)
        if status == STATUS_ALL:
            return tuple(Status.values)
        return (status,)

    def filters(self) -> Filters:
        """What was asked, as the search's filters (``permissions.readable_filters`` then
        narrows them to what the user may read)."""
        data = self.cleaned_data
        status = data.get("status") or STATUS_LIVE
        return Filters(
            tier=(data["tier"],) if data.get("tier") else (),
            kind=(data["kind"],) if data.get("kind") else (),
            # live is the search's own default, which also leaves out expired memories
            status=() if status == STATUS_LIVE else self.statuses(),
            since=_day_start(data.get("since")),
            until=_day_end(data.get("until")),
        )


def _day_start(day):
    return timezone.make_aware(datetime.combine(day, time.min)) if day else None


def _day_end(day):
    return timezone.make_aware(datetime.combine(day, time.max)) if day else None


class TierForm(forms.Form):
    tier = forms.ChoiceField(label=_("Tier"), choices=TIER_NAMES)
    pin = forms.BooleanField(
        label=_("Pin: automatic moves leave it here"), required=False, initial=True
    )
    reason = forms.CharField(label=_("Reason"), required=False, max_length=300)


class CorrectionForm(forms.Form):
    """A person's correction of a live memory: the right statement and why."""

    content = forms.CharField(
        label=_("What is right"),
        max_length=2000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    reason = forms.CharField(label=_("Why"), max_length=300, strip=True)


class ForgetForm(forms.Form):
    reason = forms.CharField(label=_("Why forget it"), max_length=300, strip=True)


class UndoForm(forms.Form):
    entry = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    reason = forms.CharField(label=_("Why undo it"), required=False, max_length=300, strip=True)
