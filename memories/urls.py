from django.urls import path

from memories import views

page_urlpatterns = [
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/tier/", views.memory_tier, name="memory-tier"),
]
