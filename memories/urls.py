from django.urls import path

from memories import api

app_name = "memories"

api_urlpatterns = [
    path("health/", api.HealthApi.as_view(), name="health"),
]
