from django.urls import path

from profiles import api

api_urlpatterns = [
    path("context/", api.ContextApi.as_view(), name="context"),
]
