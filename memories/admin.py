"""Django admin. Immutable records (events, memories' content, evidence, relations,
embeddings, audit, job runs) are view-only: changes go through services, which audit."""

from __future__ import annotations

from django.contrib import admin
from guardian.admin import GuardedModelAdmin

from memories import models


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(admin.TabularInline):
    model = models.Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(models.Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "language", "encrypted", "conflict_policy", "created_at"]
    list_filter = ["language", "encrypted", "conflict_policy"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]

    def has_delete_permission(self, request, obj=None):
        return False  # events and memories are ADD-only; erasure has its own path

    def get_readonly_fields(self, request, obj=None):
        # Switching to encrypted mode re-encrypts data: it is a command, not a checkbox.
        return ["encrypted"] if obj else []


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["role", "tenant"]
    search_fields = ["user__username", "tenant__slug"]
    autocomplete_fields = ["user", "tenant"]


@admin.register(models.Client)
class ClientAdmin(GuardedModelAdmin):
    list_display = ["__str__", "external_ref", "tenant", "user", "family_parent", "created_at"]
    list_filter = ["tenant"]
    search_fields = ["external_ref", "display_name"]
    autocomplete_fields = ["user", "family_parent", "tenant"]

    def has_delete_permission(self, request, obj=None):
        return False  # erasure removes a client with its memories, through its own path


@admin.register(models.ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = [
        "prefix",
        "name",
        "user",
        "tenant",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ]
    list_filter = ["tenant", "revoked_at"]
    search_fields = ["prefix", "name", "user__username"]
    readonly_fields = ["prefix", "tenant", "user", "created_at", "last_used_at"]
    fields = [
        "prefix",
        "name",
        "tenant",
        "user",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ]

    def has_add_permission(self, request):
        return False  # keys are created by `manage.py create_api_key`, which shows them once


@admin.register(models.Session)
class SessionAdmin(admin.ModelAdmin):
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
        return obj.content[:80]


class EvidenceInline(admin.TabularInline):
    model = models.Evidence
    fk_name = "memory"
    extra = 0
    fields = ["event", "role", "action", "related", "created_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class RelationInline(admin.TabularInline):
    model = models.Relation
    fk_name = "source"
    extra = 0
    fields = ["type", "target", "confidence", "reason", "created_at"]
    readonly_fields = fields
    can_delete = False
    verbose_name_plural = "relations (this memory → other)"

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(models.Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = [
        "__str__",
        "client",
        "kind",
        "category",
        "tier",
        "status",
        "confidence",
        "usage_count",
        "created_at",
    ]
    list_filter = ["tenant", "kind", "category", "tier", "status", "tier_pinned"]
    search_fields = ["title", "content", "client__external_ref", "tags"]
    date_hierarchy = "created_at"
    inlines = [EvidenceInline, RelationInline]
    exclude = ["search_vector"]


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
admin.site.site_header = "memoryhub administration"
admin.site.site_title = "memoryhub admin"


@admin.register(models.MemoryAccess)
class MemoryAccessAdmin(ReadOnlyAdmin):
    list_display = ["memory", "client", "at", "rolled_up"]
    list_filter = ["rolled_up"]
    date_hierarchy = "at"
