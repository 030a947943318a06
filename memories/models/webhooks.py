"""Webhooks: the URLs a tenant registers for memory and review events, and each delivery
of an event to one of them (what was sent, how it went, when it is tried again)."""

from __future__ import annotations

import secrets
import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone

from memories.crypto.fields import SealedJSONField
from memories.crypto.queryset import SealedQuerySet
from memories.models.tenancy import Client, Tenant


class WebhookEvent(models.TextChoices):
    MEMORY_ADDED = "memory.added", "A memory was added (or extends another)"
    MEMORY_UPDATED = "memory.updated", "A memory superseded an older one"
    CONFLICT_OPENED = "conflict.opened", "A contradiction waits for a supervisor"
    REVIEW_DECIDED = "review.decided", "A conflict or promotion was decided"
    CLIENT_ERASED = "client.erased", "A client was erased"


def new_secret() -> str:
    return f"whsec_{secrets.token_urlsafe(32)}"


class WebhookEndpoint(models.Model):
    """A URL of a tenant's that wants some events. The secret signs every delivery
    (HMAC-SHA256); it is kept in clear because signing needs it, and shown once."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    events = ArrayField(models.CharField(max_length=32, choices=WebhookEvent.choices))
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    description = models.CharField(max_length=200, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["tenant", "active"])]

    def __str__(self) -> str:
        return self.url


class SealedPayloadField(SealedJSONField):
    """Sealed under the client's key for an encrypted tenant, like every other column
    holding their words; an event about no client (an erasure) holds none and is not."""

    def pre_save(self, model_instance, add):
        if model_instance.client_id is None:
            return models.JSONField.pre_save(self, model_instance, add)
        return super().pre_save(model_instance, add)


class WebhookDelivery(models.Model):
    """One event sent (or to be sent) to one endpoint; its id is the event's id for the
    receiver, the same on every attempt."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        RETRYING = "retrying", "Failed, will be retried"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed, given up"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    # Erasing a client erases the deliveries about it (their payloads hold its memory).
    client = models.ForeignKey(
        Client, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    event = models.CharField(max_length=32, choices=WebhookEvent.choices)
    # The event's number among its client's (1, 2, 3… in the order they were committed;
    # every endpoint sees the same number for one event). None: about no client.
    sequence = models.BigIntegerField(null=True, blank=True, editable=False)
    payload = SealedPayloadField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # When it is due: the next try, or (while sending) when a dead sender's claim lapses.
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    delivered_at = models.DateTimeField(null=True, blank=True)

    objects = SealedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_delivery_due",
                condition=models.Q(status__in=["pending", "sending", "retrying"]),
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint_id} ({self.status})"
