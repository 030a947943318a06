from django.urls import path

from profiles import api

api_urlpatterns = [
    path("context/", api.ContextApi.as_view(), name="context"),
    path("clients/<str:ref>/profile/", api.ClientProfileApi.as_view(), name="client-profile"),
]
