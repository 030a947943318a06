"""What: sessions, immutable events and ADD-only memories (their evidence and relations:
``links.py``).

The database enforces immutability (see the ``memories_add_only`` migration): an event
is never updated or deleted, and a memory's content fields are never updated. State
(tier, status, scores, counters) may change; content may not.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from memories.crypto.fields import SealedJSONField, SealedTextField
from memories.crypto.queryset import SealedQuerySet
from memories.models.tenancy import Client, Tenant

UNIT = [MinValueValidator(0.0), MaxValueValidator(1.0)]


class Session(models.Model):
    """One conversation or agent run with a client."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="sessions")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="sessions")
    external_ref = models.CharField(max_length=200)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="memory_sessions",
        help_text="The advisor (or agent key's user) this session belongs to.",
    )
    agent = models.CharField(max_length=100, blank=True)
    project_id = models.CharField(max_length=200, blank=True)
    task_id = models.CharField(max_length=200, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_event_at = models.DateTimeField(null=True, blank=True)
    summarized_at = models.DateTimeField(
        null=True, blank=True, help_text="When the episode summary job last summarised it."
    )

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["client", "external_ref"], name="session_unique_ref_per_client"
            )
        ]
        indexes = [models.Index(fields=["tenant", "client", "-started_at"])]

    def __str__(self) -> str:
        return self.external_ref


class EventSource(models.TextChoices):
    CHAT = "chat", _("Chat")
    TOOL = "tool", _("Tool output")
    OBSERVATION = "observation", _("Observation")
    DECISION = "decision", _("Decision")
    IMPORT = "import", _("Import")


class Event(models.Model):
    """One raw thing that happened. Immutable: the episodic record and the evidence."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="events")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="events")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    source = models.CharField(max_length=16, choices=EventSource.choices)
    speaker = models.CharField(max_length=100, blank=True)
    content = SealedTextField()
    external_id = models.CharField(max_length=200, blank=True)
    observed_at = models.DateTimeField(default=timezone.now)
    received_at = models.DateTimeField(default=timezone.now, editable=False)
    origin_agent = models.CharField(max_length=100, blank=True)
    project_id = models.CharField(max_length=200, blank=True)
    task_id = models.CharField(max_length=200, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    entities = SealedJSONField(default=list, blank=True)
    metadata = SealedJSONField(default=dict, blank=True)
    # The caller's key of the item this event is a version of (a framework store's key):
    # the newest event with the key is the item, unless an ItemDeletion came after it.
    item_key = models.CharField(max_length=300, blank=True)

    objects = SealedQuerySet.as_manager()

    class Meta:
        ordering = ["-observed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["client", "external_id"],
                condition=~Q(external_id=""),
                name="event_unique_external_id_per_client",
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "client", "-observed_at"]),
            models.Index(fields=["session", "observed_at"]),
            models.Index(
                fields=["client", "item_key", "-received_at"],
                condition=~Q(item_key=""),
                name="event_item_versions",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source}@{self.observed_at:%Y-%m-%d %H:%M}: {self.content[:60]}"


class ItemDeletion(models.Model):
    """An item deleted (``memories.services.write.items``): its key answers nothing until
    an event puts it again. Events stay as they are (they are immutable)."""

    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="item_deletions")
    key = models.CharField(max_length=300)
    deleted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["client", "key", "-deleted_at"])]

    def __str__(self) -> str:
        return f"{self.key} deleted {self.deleted_at:%Y-%m-%d %H:%M}"


class Kind(models.TextChoices):
    EPISODIC = "episodic", _("Episodic")
    OPERATIONAL = "operational", _("Operational")
    SEMANTIC = "semantic", _("Semantic")
    PROCEDURAL = "procedural", _("Procedural")
    DECISION = "decision", _("Decision")
    PRINCIPLE = "principle", _("Principle")
    CLAIM = "claim", _("Claim")
    ARTIFACT = "artifact", _("Artifact")


class Category(models.TextChoices):
    NONE = "", "—"
    PREFERENCE = "preference", _("Preference")
    FACT = "fact", _("Fact")
    GOAL = "goal", _("Goal")
    RELATIONSHIP = "relationship", _("Relationship")
    CONSTRAINT = "constraint", _("Constraint")
    EVENT = "event", _("Event")


class Tier(models.TextChoices):
    CORE = "core", _("Core (always in the prompt)")
    RECALL = "recall", _("Recall (warm, searched)")
    ARCHIVAL = "archival", _("Archival (cold, by similarity)")


class Status(models.TextChoices):
    ACTIVE = "active", _("Active")
    CANDIDATE = "candidate", _("Candidate")
    PROMOTED = "promoted", _("Promoted")
    SUPERSEDED = "superseded", _("Superseded")
    MERGED = "merged", _("Merged")
    EXPIRED = "expired", _("Expired")
    DELETED = "deleted", _("Deleted")


LIVE_STATUSES = (Status.ACTIVE, Status.CANDIDATE, Status.PROMOTED)


class Precision(models.TextChoices):
    """How exactly a memory's ``occurred_on`` is known: that day, or the span it starts."""

    DAY = "day", _("Day")
    WEEK = "week", _("Week")
    MONTH = "month", _("Month")
    YEAR = "year", _("Year")


class SourceKind(models.TextChoices):
    SESSION = "session", _("Session")
    MANUAL = "manual", _("Manual")
    JOB = "job", _("Background job")
    HOOK = "hook", _("Hook")
    IMPORT = "import", _("Import")


def unexpired(at, prefix: str = "") -> Q:
    """Not gone by time at ``at`` (on the memory under ``prefix``, "memory__"…). Only
    operational context leaves the live set when its ``expires_at`` passes, at that moment
    for every reader, whether or not the TTL sweep has marked it yet; any other memory past
    it is *past* (a plan whose day has gone by, see ``Memory.is_past``): still true that it
    was said, still searched."""
    return (
        ~Q(**{f"{prefix}kind": Kind.OPERATIONAL})
        | Q(**{f"{prefix}expires_at__isnull": True})
        | Q(**{f"{prefix}expires_at__gt": at})
    )


def unexpired_sql(alias: str = "m") -> str:
    """``unexpired`` as SQL on the memory row ``alias``, with one parameter: the time."""
    return (
        f"({alias}.kind <> '{Kind.OPERATIONAL}' OR {alias}.expires_at IS NULL "
        f"OR {alias}.expires_at > %s)"
    )


class MemoryQuerySet(SealedQuerySet):
    def live(self):
        """A trusted status: active, candidate or promoted, expired or not (the TTL sweep
        looks for live memories past their expiry). What answers read is ``current``."""
        return self.filter(status__in=LIVE_STATUSES)

    def current(self, now=None):
        """What memory holds at ``now`` (default: now): live, and not gone by time (past
        plans included: see ``unexpired``)."""
        return self.live().filter(unexpired(now or timezone.now()))

    def as_of(self, at):
        """What memory said at ``at``: created by then and not yet invalidated."""
        return self.filter(created_at__lte=at).filter(
            Q(invalidated_at__isnull=True) | Q(invalidated_at__gt=at)
        )


class Memory(models.Model):
    """A consolidated, typed, tiered, scored record. ADD-only: content never changes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memories")
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="memories")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    # content (immutable)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    category = models.CharField(max_length=16, choices=Category.choices, blank=True)
    # Sealed for encrypted tenants (memories.crypto.fields): the client's words.
    title = SealedTextField(max_length=200, blank=True)
    content = SealedTextField()
    content_hash = models.CharField(
        max_length=64, help_text="Hash of the normalised text (keyed for encrypted tenants)."
    )
    language = models.CharField(max_length=16, blank=True)
    # What the statement is about, for contradiction detection ("contact_channel" = "email").
    attribute = models.CharField(max_length=100, blank=True)
    attribute_value = SealedTextField(max_length=200, blank=True)
    negated = models.BooleanField(default=False)
    # Who said it and whom it is about (content: ADD-only like the rest). ``speaker`` is
    # the event's (a name, "advisor", "user"…); ``subject`` is empty for the client, else
    # the person the statement is about (a speaker speaking of themselves, in a
    # conversation between people: ``subject`` = ``speaker``).
    speaker = models.CharField(max_length=100, blank=True)
    subject = SealedTextField(max_length=200, blank=True)
    # What it is about (memories.services.topics: "residence", "contact_channel"…) as the
    # topic classifier read it, and how sure it was: a reading of the content, not content,
    # so it may be read again by a better classifier.
    topic = models.CharField(max_length=32, blank=True)
    topic_probability = models.FloatField(default=0.0, validators=UNIT)
    # Every topic it may be about, with its probability (those of at least 0.05): a
    # sentence can tell of two ("We live in Didsbury, with a mortgage of 320k").
    topics = models.JSONField(default=dict, blank=True)
    # When the thing happened, when the text says so ("yesterday", "last month", a date),
    # resolved against the event's ``observed_at``; null: when it was said.
    occurred_on = models.DateField(null=True, blank=True)
    occurred_precision = models.CharField(max_length=8, choices=Precision.choices, blank=True)
    # What the statement answers (the turn before it in its session): indexed for search
    # with the content, never shown as it.
    context = SealedTextField(blank=True)
    search_vector = SearchVectorField(null=True, editable=False)
    observed_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    source_kind = models.CharField(
        max_length=16, choices=SourceKind.choices, default=SourceKind.SESSION
    )
    source_ref = models.CharField(max_length=300, blank=True)
    origin_agent = models.CharField(max_length=100, blank=True)
    project_id = models.CharField(max_length=200, blank=True)
    task_id = models.CharField(max_length=200, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    # state (mutable)
    tier = models.CharField(max_length=16, choices=Tier.choices, default=Tier.RECALL)
    tier_pinned = models.BooleanField(
        default=False, help_text="A supervisor fixed the tier; automatic moves leave it alone."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.CharField(max_length=300, blank=True)
    invalidated_at = models.DateTimeField(
        null=True, blank=True, help_text="When it stopped being live (superseded, merged, …)."
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    confidence = models.FloatField(default=0.7, validators=UNIT)
    importance = models.FloatField(default=0.5, validators=UNIT)
    freshness = models.FloatField(default=1.0, validators=UNIT)
    usage_count = models.PositiveIntegerField(default=0)
    dup_count = models.PositiveIntegerField(default=0)
    evidence_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(
        default=timezone.now, help_text="Last time an event restated it (recency)."
    )
    rank_score = models.FloatField(null=True, blank=True)
    promotion_score = models.FloatField(null=True, blank=True)
    canonical = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="duplicates"
    )
    dedup_group = models.UUIDField(null=True, blank=True)
    needs_embedding = models.BooleanField(default=True)
    tags = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    metadata = SealedJSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = MemoryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "memories"
        indexes = [
            models.Index(fields=["tenant", "client", "tier", "-created_at"]),
            models.Index(fields=["tenant", "client", "status", "kind"]),
            models.Index(fields=["client", "content_hash"]),
            # A search that asks for advice reads the client's preferences (few) by these.
            models.Index(fields=["client", "category"], name="memory_client_category"),
            models.Index(
                fields=["client", "attribute"], condition=~Q(attribute=""), name="memory_attribute"
            ),
            # The write path reads a client's live memories about a topic by these.
            models.Index(
                fields=["client", "topic"], condition=~Q(topic=""), name="memory_client_topic"
            ),
            models.Index(fields=["tenant", "status", "expires_at"]),
            models.Index(
                fields=["tenant"], condition=Q(needs_embedding=True), name="memory_needs_embedding"
            ),
            GinIndex(fields=["search_vector"], name="memory_search_vector_gin"),
            GinIndex(fields=["tags"], name="memory_tags_gin"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="memory_confidence_unit"
            ),
            models.CheckConstraint(
                condition=Q(importance__gte=0, importance__lte=1), name="memory_importance_unit"
            ),
            models.CheckConstraint(
                condition=Q(freshness__gte=0, freshness__lte=1), name="memory_freshness_unit"
            ),
            models.CheckConstraint(condition=~Q(content=""), name="memory_content_not_empty"),
        ]

    def __str__(self) -> str:
        return self.title or self.content[:80]

    @property
    def is_latest(self) -> bool:
        return self.status in LIVE_STATUSES

    def is_current(self, at) -> bool:
        """Live and not gone by time at ``at`` (``unexpired``, in Python)."""
        return self.status in LIVE_STATUSES and not (
            self.kind == Kind.OPERATIONAL and self.expires_at is not None and self.expires_at <= at
        )

    def is_past(self, at) -> bool:
        """What it speaks of was ahead when said and its day has gone by at ``at``: a plan, a
        deadline, an appointment. It stays a memory; ranking and the context say it is past."""
        return self.expires_at is not None and self.expires_at <= at
