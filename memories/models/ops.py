"""How it went: the background job run log and the audit trail."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from memories.models.tenancy import Tenant


class JobRun(models.Model):
    class Outcome(models.TextChoices):
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        SKIPPED = "skipped", "Skipped (the same job was already running)"

    job = models.CharField(max_length=64)
    tenant = models.ForeignKey(
        Tenant, null=True, blank=True, on_delete=models.SET_NULL, related_name="job_runs"
    )
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RUNNING)
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["job", "-started_at"])]

    def __str__(self) -> str:
        return f"{self.job} {self.outcome} @ {self.started_at:%Y-%m-%d %H:%M:%S}"


class AuditEntry(models.Model):
    """Who did what to which object, when and why. Holds identifiers, never content."""

    tenant = models.ForeignKey(
        Tenant, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_entries"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="audit_entries",
    )
    actor_label = models.CharField(
        max_length=200, help_text="The user, API key prefix or job that acted."
    )
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    reason = models.CharField(max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["tenant", "-at"]),
            models.Index(fields=["object_type", "object_id"]),
        ]

    def __str__(self) -> str:
        return f"{self.actor_label} {self.action} {self.object_type}:{self.object_id}"


class MemoryAccess(models.Model):
    """One retrieval of a memory. Reads append here (one INSERT per read) instead of
    updating hot memory rows; a job rolls these up into usage counters and the 7-day
    access window that tier promotion reads."""

    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    client = models.ForeignKey("memories.Client", on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    rolled_up = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "memory accesses"
        indexes = [
            models.Index(fields=["memory", "at"]),
            models.Index(fields=["at"], condition=models.Q(rolled_up=False), name="access_pending"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} read at {self.at:%Y-%m-%d %H:%M:%S}"


class RateWindow(models.Model):
    """One caller's request count in the current and the previous rate-limit window (a
    sliding-window counter). The table is UNLOGGED: a count lost in a crash costs nothing
    but a moment's leniency, and writes to it never wait for the WAL."""

    key = models.CharField(max_length=200, primary_key=True)
    window_start = models.BigIntegerField(help_text="Unix time the current window began.")
    hits = models.IntegerField()
    previous_hits = models.IntegerField()

    def __str__(self) -> str:
        return f"{self.key}: {self.hits} (+{self.previous_hits} before)"
