from django.urls import path

from profiles.pages import assign, panels, views

page_urlpatterns = [
    path("clients/", views.client_list, name="clients"),
    path("clients/<uuid:client_id>/", views.client_detail, name="client"),
    path("clients/<uuid:client_id>/memories/", views.client_memories, name="client-memories"),
    path("clients/<uuid:client_id>/timeline/", views.client_timeline, name="client-timeline"),
    path(
        "clients/<uuid:client_id>/context/",
        panels.client_context_preview,
        name="client-context",
    ),
    path("clients/<uuid:client_id>/export/", panels.client_export_page, name="client-export"),
    path(
        "clients/<uuid:client_id>/advisors/",
        assign.client_advisors_page,
        name="client-advisors",
    ),
    path("clients/<uuid:client_id>/erase/", views.client_erase_page, name="client-erase"),
    path("me/", views.my_memory, name="mine"),
]
