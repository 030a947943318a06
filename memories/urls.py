from django.urls import path

from memories.pages import audit, corrections, views

page_urlpatterns = [
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/tier/", views.memory_tier, name="memory-tier"),
    path(
        "memories/<uuid:memory_id>/correct/",
        corrections.memory_correct_page,
        name="memory-correct",
    ),
    path(
        "memories/<uuid:memory_id>/forget/",
        corrections.memory_forget_page,
        name="memory-forget",
    ),
    path("memories/<uuid:memory_id>/undo/", corrections.memory_undo_page, name="memory-undo"),
    path("memories/<uuid:memory_id>/audit/", audit.memory_audit_page, name="memory-audit"),
    path("clients/<uuid:client_id>/audit/", audit.client_audit_page, name="client-audit"),
]
