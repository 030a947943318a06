from django.urls import path

from profiles import views

page_urlpatterns = [
    path("clients/<uuid:client_id>/", views.client_detail, name="client"),
    path("clients/<uuid:client_id>/memories/", views.client_memories, name="client-memories"),
    path("clients/<uuid:client_id>/timeline/", views.client_timeline, name="client-timeline"),
    path("me/", views.my_memory, name="mine"),
]
