from django.urls import path

from memories import audit_views, correction_views, views

page_urlpatterns = [
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/tier/", views.memory_tier, name="memory-tier"),
    path(
        "memories/<uuid:memory_id>/correct/",
        correction_views.memory_correct_page,
        name="memory-correct",
    ),
    path(
        "memories/<uuid:memory_id>/forget/",
        correction_views.memory_forget_page,
        name="memory-forget",
    ),
    path("memories/<uuid:memory_id>/undo/", correction_views.memory_undo_page, name="memory-undo"),
    path("memories/<uuid:memory_id>/audit/", audit_views.memory_audit_page, name="memory-audit"),
    path("clients/<uuid:client_id>/audit/", audit_views.client_audit_page, name="client-audit"),
]
