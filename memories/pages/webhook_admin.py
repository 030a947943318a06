"""The admin's webhook pages (beside ``memories.admin``, which they build on): a tenant's
endpoints, and every delivery with its status, attempts and last error."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import models as dj_models
from django.utils import timezone

from memories import models
from memories.admin import ReadOnlyAdmin, ScopedAdmin
from memories.errors import DomainError
from memories.services.webhooks.endpoints import webhook_endpoint_room, webhook_url_checked

Status = models.WebhookDelivery.Status


def _https_by_default(field, **kwargs):
    if isinstance(field, dj_models.URLField):
        kwargs["assume_scheme"] = "https"  # Django 6's default, asked for now
    return field.formfield(**kwargs)


class WebhookEndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=models.WebhookEvent.choices, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = models.WebhookEndpoint
        fields = ["tenant", "url", "events", "description", "active"]
        formfield_callback = _https_by_default

    def clean_url(self):
        """The API's checks (``webhook_url_checked``)."""
        try:
            return webhook_url_checked(self.cleaned_data["url"])
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from exc

    def clean(self):
        cleaned = super().clean() or {}
        if self.instance._state.adding and (tenant := cleaned.get("tenant")) is not None:
            try:
                webhook_endpoint_room(tenant)
            except DomainError as exc:
                raise forms.ValidationError(exc.message) from exc
        return cleaned


@admin.register(models.WebhookEndpoint)
class WebhookEndpointAdmin(ScopedAdmin):
    form = WebhookEndpointForm
    formfield_overrides = {dj_models.URLField: {"assume_scheme": "https"}}
    list_display = ["url", "tenant", "events", "active", "created_at"]
    list_filter = ["tenant", "active"]
    search_fields = ["url", "description"]
    # The receiver checks signatures with it: staff who manage webhooks may read it.
    readonly_fields = ["secret", "created_at"]


@admin.register(models.WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "event",
        "endpoint",
        "client",
        "sequence",
        "status",
        "attempts",
        "last_status_code",
        "error",
        "next_attempt_at",
        "delivered_at",
    ]
    list_filter = ["status", "event", "tenant"]
    list_select_related = ["endpoint", "client"]
    date_hierarchy = "created_at"
    actions = ["retry_now"]

    @admin.display(description="last error")
    def error(self, obj):
        return obj.last_error[:80]

    @admin.action(description="Retry the selected deliveries now", permissions=["view"])
    def retry_now(self, request, queryset):
        retried = queryset.filter(status__in=[Status.FAILED, Status.RETRYING]).update(
            status=Status.RETRYING, next_attempt_at=timezone.now()
        )
        self.message_user(
            request,
            f"{retried} deliveries will be sent again within a minute (the webhooks job).",
            messages.SUCCESS,
        )
