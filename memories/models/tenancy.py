"""Who: tenants, their members and roles, the clients memory is about, and API keys."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from guardian.models import GroupObjectPermissionBase, UserObjectPermissionBase

from memories.languages import language_name


class TextSearchLanguage(models.TextChoices):
    """A tenant's language: what its memories are stemmed in when their own language cannot
    be told (``memories.languages``), and what every query is also read in."""

    ENGLISH = "english", "English"
    ITALIAN = "italian", "Italian"
    SPANISH = "spanish", "Spanish"
    FRENCH = "french", "French"
    GERMAN = "german", "German"
    PORTUGUESE = "portuguese", "Portuguese"
    DUTCH = "dutch", "Dutch"
    SIMPLE = "simple", "Simple (no stemming)"


class ConflictPolicy(models.TextChoices):
    # DESIGN: against a promoted memory always review; otherwise supersede only on
    # superior evidence. A tenant may also ask for a human on every contradiction.
    SUPERIOR_EVIDENCE = "superior_evidence", "Auto-supersede on superior evidence"
    ALWAYS_REVIEW = "always_review", "Always ask a supervisor"


class Tenant(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=63, unique=True)
    name = models.CharField(max_length=200)
    language = models.CharField(
        max_length=16, choices=TextSearchLanguage.choices, default=TextSearchLanguage.ENGLISH
    )
    encrypted = models.BooleanField(
        default=False, help_text="Content is encrypted at rest with a key per client."
    )
    vector_search_enabled = models.BooleanField(default=True)
    # The space this tenant's memories are searched, deduplicated and related in while the
    # configured model's space is being filled for them (a model change): see
    # memories.services.embedding.spaces. Empty: the configured model's own.
    embedding_space = models.ForeignKey(
        "memories.EmbeddingSpace",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Set while a new embedding model's vectors are filled in: searches use this "
        "space until every memory has a vector of the new model.",
    )
    webhook_plaintext_allowed = models.BooleanField(
        default=False,
        help_text="Encrypted tenants: webhook deliveries carry what clients said (in clear, "
        "to the tenant's own endpoints). Off: they carry ids, kinds and statuses only.",
    )
    secrets_kept_sealed = models.BooleanField(
        default=False,
        help_text="Encrypted tenants: an event that holds a password, PIN, card number or API "
        "key keeps it, sealed, in the event (memories, vectors and webhooks never have it). "
        "Off, and always for other tenants: the event is stored with placeholders too.",
    )
    account_numbers_shared = models.BooleanField(
        default=False,
        help_text="IBANs and account numbers are kept in memory either way; on, they are also "
        "sent in webhook deliveries and to remote embedding providers (off: masked there).",
    )
    advisors_create_clients = models.BooleanField(
        default=False,
        help_text="Advisors' keys create a client on the first event about a new reference. "
        "References are unique in the tenant, so an advisor can then learn that a reference "
        "is taken; use opaque ones (CRM ids). Off: supervisors create clients, and an advisor "
        "gets the same 404 for an unknown reference as for another advisor's client.",
    )
    conflict_policy = models.CharField(
        max_length=32, choices=ConflictPolicy.choices, default=ConflictPolicy.SUPERIOR_EVIDENCE
    )
    auto_approve_promotions_above = models.FloatField(
        null=True,
        blank=True,
        help_text="Promotion score above which promotions are approved without review. "
        "Empty: every promotion needs a supervisor.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    # Not a column: whether any webhook endpoint is active, when the tenant was read with an
    # API key (api_key_verify's statement answers it). None: not known, a write asks.
    webhooks_active: bool | None = None

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(auto_approve_promotions_above__isnull=True)
                | Q(auto_approve_promotions_above__gte=0, auto_approve_promotions_above__lte=1),
                name="tenant_auto_approve_in_unit_range",
            )
        ]

    def __str__(self) -> str:
        return self.slug


class Role(models.TextChoices):
    ADMIN = "ADMIN", _("Admin")
    SUPERVISOR = "SUPERVISOR", _("Supervisor")
    ADVISOR = "ADVISOR", _("Advisor")
    CLIENT = "CLIENT", _("Client")
    PROSPECT = "PROSPECT", _("Prospect")
    NEXTGEN_HEIR = "NEXTGEN_HEIR", _("Next-generation heir")


class Membership(models.Model):
    """A user's role in a tenant. One membership per user and tenant."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_unique_user_tenant")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} @ {self.tenant}"


class UserSettings(models.Model):
    """What a person chose for themselves in the pages, whatever their tenants and roles."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="page_settings"
    )
    # Empty: the pages follow the browser, then the client's or the tenant's language
    # (memories.pages.language).
    language = models.CharField(max_length=8, blank=True, choices=settings.LANGUAGES)

    class Meta:
        verbose_name = "user settings"
        verbose_name_plural = "user settings"

    def __str__(self) -> str:
        return f"{self.user} ({self.language or 'automatic'})"


class Client(models.Model):
    """The person memories are about. Advisors are assigned through object permissions."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="clients")
    external_ref = models.CharField(
        max_length=200, help_text="The caller's reference for this client, unique per tenant."
    )
    display_name = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=16, blank=True, help_text="Preferred language code.")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="client_profile",
        help_text="The login of the client (or prospect, or heir) themselves.",
    )
    family_parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="heirs"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # The people heard in this client's events (not the assistant, not generic roles):
    # search reads their names as names, not as topic words.
    speakers = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    # The names the client is called by in their conversations (an advisor greeting them:
    # "Buongiorno Lorenza", "Hi Mrs Hollis"), folded: a question that names the client by
    # one of them asks about the client, not about a word.
    names = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    profile_stale_since = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Memory changed since the profile was built; the refresh clears it. "
        "Many writes mark it once, so they queue one refresh, not one each.",
    )
    # The last webhook sequence number given to an event about this client (see
    # services.webhooks.events): taken under the row's lock, so numbers follow commits.
    webhook_sequence = models.BigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["display_name", "external_ref"]
        permissions = [("advise_client", "Advise this client (read and write its memory)")]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "external_ref"], name="client_unique_ref_per_tenant"
            ),
            models.CheckConstraint(
                condition=~Q(family_parent=models.F("id")), name="client_not_own_parent"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.external_ref

    @property
    def language_name(self) -> str:
        """The name of the client's language in the reader's language; "" for none."""
        return language_name(self.language) if self.language else ""


class ClientUserObjectPermission(UserObjectPermissionBase):
    """Direct-FK guardian table: advisor ↔ client assignments join without casts."""

    content_object = models.ForeignKey(Client, on_delete=models.CASCADE)

    class Meta(UserObjectPermissionBase.Meta):
        verbose_name = "client permission (user)"


class ClientGroupObjectPermission(GroupObjectPermissionBase):
    content_object = models.ForeignKey(Client, on_delete=models.CASCADE)

    class Meta(GroupObjectPermissionBase.Meta):
        verbose_name = "client permission (group)"


class ApiKey(models.Model):
    """An agent's credential. Only a SHA-256 of the secret is stored; the prefix is shown."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    hashed_secret = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    # With a read replica: the primary's WAL position after this key's last write. Its
    # reads go to the replica once the replica has replayed that far (memoryhub/replica.py).
    written_lsn = models.BigIntegerField(null=True, blank=True, editable=False)

    # Not a column: the user's role in the tenant, set by api_key_verify.
    member_role: str | None

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    def is_usable(self, at=None) -> bool:
        at = at or timezone.now()
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > at
