"""Per-client profile: stable facts (static) and recent activity (dynamic)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memories.crypto.fields import SealedJSONField
from memories.crypto.queryset import SealedQuerySet
from memories.models import Client, Tenant


class Profile(models.Model):
    """A cache of the client's profile, rebuilt from memories by the profile service.

    ``static`` and ``dynamic`` are lists of ``{"memory", "text", "category", "confidence"}``.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="profiles")
    client = models.OneToOneField(Client, on_delete=models.CASCADE, related_name="profile")
    # Sealed for encrypted tenants: they quote the client's memories.
    static = SealedJSONField(default=list, blank=True)
    dynamic = SealedJSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=0)
    refreshed_at = models.DateTimeField(default=timezone.now)

    objects = SealedQuerySet.as_manager()

    def __str__(self) -> str:
        return f"profile of {self.client}"
