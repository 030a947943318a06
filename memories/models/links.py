"""How memories connect: the events each rests on (evidence) and typed relations between
memories (updates, extends, derives, merged into, conflicts with).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise

from memories.models.records import UNIT, Event, Memory
from memories.models.tenancy import Tenant


class Evidence(models.Model):
    """A memory rests on an event: extracted from it, restated by it, or consolidated."""

    class Role(models.TextChoices):
        EXTRACTED = "extracted", _("Extracted from")
        RESTATED = "restated", _("Restated by (dedup)")
        CONSOLIDATED = "consolidated", _("Consolidated from")

    class Action(models.TextChoices):
        """What ingesting the event did to the memory (the API's ``action``)."""

        ADDED = "added", _("Added")
        DEDUPLICATED = "deduplicated", _("Deduplicated")
        UPDATED = "updated", _("Updated (supersedes the related memory)")
        EXTENDED = "extended", _("Extended the related memory")
        CONFLICT = "conflict", _("Conflicts with the related memory")

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="evidence")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="evidence_for")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EXTRACTED)
    # What ingesting the event did to the memory, so a replayed event answers the same.
    action = models.CharField(max_length=16, choices=Action.choices, blank=True)
    related = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name_plural = "evidence"
        constraints = [
            models.UniqueConstraint(fields=["memory", "event"], name="evidence_unique_pair")
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} ← {self.event_id}"

    # How an evidence list reads each link, after the event it names.
    ROLE_PHRASES: dict[str, _StrOrPromise] = {
        Role.EXTRACTED: _("the memory was taken from this"),
        Role.RESTATED: _("said again (deduplicated)"),
        Role.CONSOLIDATED: _("consolidated from this"),
    }

    @property
    def role_phrase(self) -> str:
        return str(self.ROLE_PHRASES.get(self.role, self.get_role_display()))


class RelationType(models.TextChoices):
    UPDATES = "updates", _("updates (supersedes)")
    EXTENDS = "extends", _("extends")
    DERIVES = "derives", _("derives from")
    MERGED_INTO = "merged_into", _("merged into")
    CONFLICTS_WITH = "conflicts_with", _("conflicts with")


class Relation(models.Model):
    """A typed edge ``source → target``: the newer memory is the source of ``updates``."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="relations")
    source = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="relations_out")
    target = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="relations_in")
    type = models.CharField(max_length=16, choices=RelationType.choices)
    confidence = models.FloatField(default=1.0, validators=UNIT)
    reason = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "type"], name="relation_unique_edge"
            ),
            models.CheckConstraint(
                condition=~Q(source=models.F("target")), name="relation_no_loop"
            ),
        ]
        indexes = [models.Index(fields=["target", "type"])]

    def __str__(self) -> str:
        return f"{self.source_id} {self.type} {self.target_id}"
