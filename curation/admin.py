from django.contrib import admin

from curation.models import ReviewItem
from memories.admin import ScopedAdmin


@admin.register(ReviewItem)
class ReviewItemAdmin(ScopedAdmin):
    """View-only: decisions are taken in the review queue, which applies and audits them."""

    list_display = [
        "type",
        "state",
        "client",
        "score",
        "recommended",
        "decision",
        "decided_by",
        "created_at",
    ]
    list_filter = ["type", "state", "recommended", "decision", "tenant"]
    search_fields = ["summary", "reason", "client__external_ref"]
    raw_id_fields = ["memory", "other_memory", "client"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
