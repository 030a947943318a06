"""Keys of encrypted tenants: per-client data keys and per-tenant index keys, both stored
wrapped (encrypted) by the master key. Nothing here is usable without the master key."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from memories.models.tenancy import Client, Tenant


class DataKey(models.Model):
    """A random 256-bit key, wrapped by the master key ``master_version``.

    ``purpose=data``: one per client, encrypts that client's texts (AES-256-GCM); erasure
    deletes it, so a backup taken before the erasure holds only undecipherable text.
    ``purpose=index``: one per tenant, keys the blind index and the dedup hash, so equal
    words of two clients of one tenant hash alike (search is per client anyway) and no
    tenant can compute another's tokens.
    """

    class Purpose(models.TextChoices):
        DATA = "data", "Client data key"
        INDEX = "index", "Tenant index key"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="data_keys")
    client = models.ForeignKey(
        Client, null=True, blank=True, on_delete=models.CASCADE, related_name="data_keys"
    )
    purpose = models.CharField(max_length=8, choices=Purpose.choices, default=Purpose.DATA)
    wrapped = models.BinaryField(editable=False)
    master_version = models.CharField(
        max_length=64, help_text="Which master key wrapped it (the provider's key id)."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    rewrapped_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["client"], condition=Q(purpose="data"), name="datakey_one_per_client"
            ),
            models.UniqueConstraint(
                fields=["tenant"], condition=Q(purpose="index"), name="datakey_one_index_per_tenant"
            ),
            models.CheckConstraint(
                condition=Q(purpose="data", client__isnull=False)
                | Q(purpose="index", client__isnull=True),
                name="datakey_purpose_matches_client",
            ),
        ]
        indexes = [models.Index(fields=["master_version"])]

    def __str__(self) -> str:
        return f"{self.purpose} key {self.id} ({self.master_version})"
