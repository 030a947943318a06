from django.contrib import admin

from memories.admin import ScopedAdmin
from profiles.models import Profile


@admin.register(Profile)
class ProfileAdmin(ScopedAdmin):
    """View-only: profiles are rebuilt from memories, never edited by hand."""

    list_display = ["client", "tenant", "version", "refreshed_at"]
    list_filter = ["tenant"]
    search_fields = ["client__external_ref", "client__display_name"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
