"""Django admin. Immutable records (events, memories' content, evidence, relations,
embeddings, audit, job runs) are view-only: changes go through services, which audit.

Superusers see every tenant. Staff who are not superusers see, on every page, list
filter and foreign-key choice, only what ``memories.permissions`` lets them see.

Encrypted tenants: the admin never opens a sealed field. Querysets defer the sealed
columns, lists show a placeholder, and a sealed row's page leaves those fields out; the
client's words are read in the app's pages, through the permissions of the person asking."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from guardian.admin import GuardedModelAdmin

from memories import models, permissions
from memories.crypto import keys
from memories.crypto.fields import SealedJSONField, SealedTextField
from memories.crypto.providers import KeyUnavailable, require_master_key
from memories.pages.login import ThrottledAdminLogin
from memories.services.tenancy.api_keys import api_key_revoke, api_key_state

# Foreign keys whose choices are narrowed to what the user may see.
_SCOPED_CHOICES = (models.Tenant, models.Client, models.Memory, models.Session, models.Event)


SEALED_PLACEHOLDER = "🔒 sealed (encrypted tenant)"


def sealed_names(model) -> list[str]:
    return [
        f.name
        for f in model._meta.concrete_fields
        if isinstance(f, SealedTextField | SealedJSONField)
    ]


def shown(obj, text: str) -> str:
    """``text`` for a list column, or the placeholder for a row of an encrypted tenant."""
    return SEALED_PLACEHOLDER if obj.tenant.encrypted else text


if TYPE_CHECKING:
    # What the mixin's super() calls reach: a ModelAdmin, or an inline (no list filter).
    _AdminBase = admin.ModelAdmin
else:
    _AdminBase = object


class ScopedAdminMixin(_AdminBase):
    """Querysets, foreign-key choices and the tenant list filter go through
    ``permissions.scoped`` (a no-op for superusers). Sealed fields are deferred, and left
    out of an encrypted tenant's row page."""

    def get_queryset(self, request):
        queryset = permissions.scoped(request.user, super().get_queryset(request))
        sealed = sealed_names(queryset.model)
        return queryset.defer(*sealed).select_related("tenant") if sealed else queryset

    def get_exclude(self, request, obj=None):
        exclude = list(super().get_exclude(request, obj) or [])
        if obj is not None and sealed_names(type(obj)) and obj.tenant.encrypted:
            exclude += sealed_names(type(obj))
        return exclude

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        related = db_field.remote_field.model
        if related in _SCOPED_CHOICES:
            kwargs["queryset"] = permissions.scoped(request.user, related._default_manager.all())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_list_filter(self, request):
        # The plain filter would list every tenant's name; this one only those in view.
        return [
            ("tenant", admin.RelatedOnlyFieldListFilter) if f == "tenant" else f
            for f in super().get_list_filter(request)
        ]


class ScopedAdmin(ScopedAdminMixin, admin.ModelAdmin):
    pass


class ReadOnlyAdmin(ScopedAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(ScopedAdminMixin, admin.TabularInline):
    model = models.Membership
    extra = 0
    autocomplete_fields = ["user"]


class TenantForm(forms.ModelForm):
    class Meta:
        model = models.Tenant
        fields = [
            "slug",
            "name",
            "language",
            "encrypted",
            "vector_search_enabled",
            "conflict_policy",
            "auto_approve_promotions_above",
            "webhook_plaintext_allowed",
            "secrets_kept_sealed",
            "account_numbers_shared",
            "advisors_create_clients",
        ]

    def clean_encrypted(self):
        encrypted = self.cleaned_data["encrypted"]
        if encrypted and not (self.instance.pk and self.instance.encrypted):
            try:
                require_master_key()
            except KeyUnavailable as exc:
                raise forms.ValidationError(str(exc)) from exc
        return encrypted


@admin.register(models.Tenant)
class TenantAdmin(ScopedAdmin):
    form = TenantForm
    list_display = ["slug", "name", "language", "encrypted", "conflict_policy", "created_at"]
    list_filter = ["language", "encrypted", "conflict_policy"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]

    def has_delete_permission(self, request, obj=None):
        return False  # events and memories are ADD-only; erasure has its own path

    def get_readonly_fields(self, request, obj=None):
        # Switching to encrypted mode re-encrypts data: it is a command, not a checkbox.
        return ["encrypted"] if obj else []

    def save_model(self, request, obj, form, change):
        was_on = change and models.Tenant.objects.get(pk=obj.pk).vector_search_enabled
        super().save_model(request, obj, form, change)
        if obj.encrypted:
            keys.index_key(obj.pk)  # created with the tenant, like manage.py create_tenant
        if was_on and not obj.vector_search_enabled:
            from memories.services.tenancy.encryption import tenant_vectors_drop

            dropped = tenant_vectors_drop(tenant=obj)
            self.message_user(request, f"Vector search is off: {dropped} vectors deleted.")


@admin.register(models.Membership)
class MembershipAdmin(ScopedAdmin):
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["role", "tenant"]
    search_fields = ["user__username", "tenant__slug"]
    autocomplete_fields = ["user", "tenant"]


@admin.register(models.Client)
# guardian annotates change_form_template as str, django-stubs as a ClassVar that may be None.
class ClientAdmin(ScopedAdminMixin, GuardedModelAdmin):  # type: ignore[misc]
    list_display = ["__str__", "external_ref", "tenant", "user", "family_parent", "created_at"]
    list_filter = ["tenant"]
    search_fields = ["external_ref", "display_name"]
    autocomplete_fields = ["user", "family_parent", "tenant"]

    def has_delete_permission(self, request, obj=None):
        return False  # erasure removes a client with its memories, through its own path


@admin.register(models.ApiKey)
class ApiKeyAdmin(ScopedAdmin):
    """Keys are created by ``manage.py create_api_key``, which shows the raw key once; the
    admin shows the prefix, never the secret (only its hash is stored, and not shown).
    Revoking is an action, so it is audited and cannot be undone by editing a field."""

    list_display = [
        "prefix",
        "name",
        "user",
        "tenant",
        "state",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ]
    list_filter = ["tenant", "revoked_at"]
    search_fields = ["prefix", "name", "user__username"]
    readonly_fields = [
        "prefix",
        "tenant",
        "user",
        "state",
        "created_at",
        "revoked_at",
        "last_used_at",
    ]
    fields = [
        "prefix",
        "name",
        "tenant",
        "user",
        "state",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ]
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    @admin.display(description="state")
    def state(self, obj):
        return api_key_state(obj)

    @admin.action(description="Revoke the selected API keys", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for key in queryset.filter(revoked_at__isnull=True):
            api_key_revoke(key=key, actor=request.user, reason="revoked in the admin")
            revoked += 1
        self.message_user(
            request,
            f"{revoked} API key(s) revoked; they answer 401 from now on "
            f"({timezone.now():%Y-%m-%d %H:%M} UTC).",
            messages.SUCCESS,
        )


@admin.register(models.Session)
class SessionAdmin(ScopedAdmin):
    list_display = ["external_ref", "client", "tenant", "user", "agent", "started_at"]
    list_filter = ["tenant", "agent"]
    search_fields = ["external_ref", "client__external_ref", "project_id", "task_id", "run_id"]
    raw_id_fields = ["client", "user"]

    def has_delete_permission(self, request, obj=None):
        return False  # a session holds immutable events


@admin.register(models.Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["observed_at", "client", "source", "speaker", "short_content", "external_id"]
    list_filter = ["tenant", "source"]
    search_fields = ["external_id", "client__external_ref", "speaker"]
    date_hierarchy = "observed_at"

    @admin.display(description="content")
    def short_content(self, obj):
        return shown(obj, obj.content[:80] if not obj.tenant.encrypted else "")


class EvidenceInline(ScopedAdminMixin, admin.TabularInline):
    model = models.Evidence
    fk_name = "memory"
    extra = 0
    fields = readonly_fields = ("event", "role", "action", "related", "created_at")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class RelationInline(ScopedAdminMixin, admin.TabularInline):
    model = models.Relation
    fk_name = "source"
    extra = 0
    fields = readonly_fields = ("type", "target", "confidence", "reason", "created_at")
    can_delete = False
    verbose_name_plural = "relations (this memory → other)"

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(models.Memory)
class MemoryAdmin(ReadOnlyAdmin):
    # Few and narrow columns, so that the statement has the width (at 1,280 px); the rest is
    # on the memory's page.
    list_display = ["text", "client", "kind_and_category", "tier", "status", "created_at"]
    list_filter = ["tenant", "kind", "category", "tier", "status", "tier_pinned"]
    search_fields = ["title", "content", "client__external_ref", "tags"]
    date_hierarchy = "created_at"
    inlines = [EvidenceInline, RelationInline]
    exclude = ["search_vector"]

    @admin.display(description="memory")
    def text(self, obj):
        return shown(obj, "" if obj.tenant.encrypted else str(obj))

    @admin.display(description="kind", ordering="kind")
    def kind_and_category(self, obj):
        return " · ".join(filter(None, [obj.kind, obj.category]))


@admin.register(models.Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    list_display = ["memory", "event", "role", "created_at"]
    list_filter = ["role"]


@admin.register(models.Relation)
class RelationAdmin(ReadOnlyAdmin):
    list_display = ["source", "type", "target", "confidence", "created_at"]
    list_filter = ["type", "tenant"]


@admin.register(models.EmbeddingSpace)
class EmbeddingSpaceAdmin(ReadOnlyAdmin):
    list_display = ["provider", "model", "dimension", "created_at"]


@admin.register(models.MemoryEmbedding)
class MemoryEmbeddingAdmin(ReadOnlyAdmin):
    list_display = ["memory", "space", "client", "created_at"]
    list_filter = ["space", "tenant"]
    exclude = ["vector"]


@admin.register(models.EventEmbedding)
class EventEmbeddingAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "space", "client", "created_at"]
    list_filter = ["space", "tenant"]
    exclude = ["vector"]


@admin.register(models.JobRun)
class JobRunAdmin(ReadOnlyAdmin):
    list_display = ["job", "tenant", "outcome", "started_at", "duration_ms", "counts"]
    list_filter = ["job", "outcome", "tenant"]
    date_hierarchy = "started_at"


@admin.register(models.AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_label", "action", "object_type", "object_id", "reason"]
    list_filter = ["action", "object_type", "tenant"]
    search_fields = ["object_id", "actor_label", "reason"]
    date_hierarchy = "at"


admin.site.register(models.ClientUserObjectPermission, ReadOnlyAdmin)
admin.site.register(models.ClientGroupObjectPermission, ReadOnlyAdmin)
admin.site.login_form = ThrottledAdminLogin  # failed logins counted as on the site's page
admin.site.site_header = "memoryhub administration"
# The side menu repeats the index page and takes a quarter of a laptop's width from every
# list (the memory list's statements wrapped a few words a line at 1,280 px).
admin.site.enable_nav_sidebar = False
admin.site.site_title = "memoryhub admin"


@admin.register(models.MemoryAccess)
class MemoryAccessAdmin(ReadOnlyAdmin):
    list_display = ["memory", "client", "at", "rolled_up"]
    list_filter = ["rolled_up"]
    date_hierarchy = "at"
