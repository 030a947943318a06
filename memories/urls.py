from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memories import api, api_clients

app_name = "memories"

api_urlpatterns = [
    path("health/", api.HealthApi.as_view(), name="health"),
    path("events/", api.EventsApi.as_view(), name="events"),
    path("events/batch/", api.EventsBatchApi.as_view(), name="events-batch"),
    path("search/", api.SearchApi.as_view(), name="search"),
    path("memories/", api.MemoryListApi.as_view(), name="memories"),
    path("memories/<uuid:memory_id>/", api.MemoryApi.as_view(), name="memory"),
    path(
        "memories/<uuid:memory_id>/feedback/",
        api.MemoryFeedbackApi.as_view(),
        name="memory-feedback",
    ),
    # POST a client's export document to create the client again (no reference in the
    # path, so no client reference can collide with it).
    path("clients/", api_clients.ClientImportApi.as_view(), name="client-import"),
    path("clients/<str:ref>/", api_clients.ClientApi.as_view(), name="client"),
    path("clients/<str:ref>/export/", api_clients.ClientExportApi.as_view(), name="client-export"),
    path("tools/", api.ToolsApi.as_view(), name="tools"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path(
        "memories/<uuid:memory_id>/history/", api.MemoryHistoryApi.as_view(), name="memory-history"
    ),
]
