from django.urls import path

from profiles.api import views

api_urlpatterns = [
    path("context/", views.ContextApi.as_view(), name="context"),
    path("clients/<str:ref>/profile/", views.ClientProfileApi.as_view(), name="client-profile"),
]
