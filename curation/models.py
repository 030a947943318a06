"""The review queue: conflicts and promotions waiting for a supervisor."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from memories.crypto.fields import SealedTextField
from memories.crypto.queryset import SealedQuerySet
from memories.models import Client, Memory, Tenant


class ReviewItem(models.Model):
    class Type(models.TextChoices):
        CONFLICT = "conflict", _("Conflict")
        PROMOTION = "promotion", _("Promotion")

    class State(models.TextChoices):
        OPEN = "open", _("Open")
        DECIDED = "decided", _("Decided")
        OBSOLETE = "obsolete", _("Obsolete (its memories changed meanwhile)")

    class Decision(models.TextChoices):
        NONE = "", "—"
        KEEP_OLD = "keep_old", pgettext_lazy("review decision", "Keep old")
        ACCEPT_NEW = "accept_new", pgettext_lazy("review decision", "Accept new")
        KEEP_BOTH = "keep_both", pgettext_lazy("review decision", "Keep both")
        MERGE = "merge", pgettext_lazy("review decision", "Merge")
        APPROVE = "approve", pgettext_lazy("review decision", "Approve")
        REJECT = "reject", pgettext_lazy("review decision", "Reject")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="review_items")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="review_items")
    type = models.CharField(max_length=16, choices=Type.choices)
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    memory = models.ForeignKey(
        Memory,
        on_delete=models.CASCADE,
        related_name="review_items",
        help_text="The new memory (conflict) or the candidate (promotion).",
    )
    other_memory = models.ForeignKey(
        Memory,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_items_as_other",
        help_text="The existing memory it conflicts with.",
    )
    score = models.FloatField(null=True, blank=True)
    score_components = models.JSONField(default=dict, blank=True)
    recommended = models.BooleanField(default=False)
    summary = SealedTextField(max_length=500, blank=True)  # sealed: quotes memories
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = SealedTextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = SealedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["tenant", "state", "type", "-created_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["type", "memory", "other_memory"],
                condition=Q(state="open"),
                nulls_distinct=False,
                name="review_item_one_open_per_subject",
            ),
            models.CheckConstraint(
                condition=Q(type="promotion") | Q(other_memory__isnull=False),
                name="review_conflict_has_other",
            ),
            models.CheckConstraint(
                condition=Q(state="open", decision="")
                | Q(state="obsolete")
                | (Q(state="decided") & ~Q(decision="")),
                name="review_decision_matches_state",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()} · {self.get_state_display()}"
