from django.urls import path

from memories import views

page_urlpatterns = [
    path("clients/", views.client_list, name="clients"),
    path("clients/<uuid:client_id>/erase/", views.client_erase_page, name="client-erase"),
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/tier/", views.memory_tier, name="memory-tier"),
]
