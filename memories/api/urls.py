from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from memories.api import (
    client_record,
    clients,
    events,
    health,
    items,
    memories,
    probes,
    search,
    tools,
    webhooks,
)

app_name = "memories"

api_urlpatterns = [
    path("health/", health.HealthApi.as_view(), name="health"),
    # With or without the slash: a probe that gets a redirect may count it as a success.
    path("health/live", probes.LiveApi.as_view(), name="health-live"),
    path("health/live/", probes.LiveSlashApi.as_view()),
    path("health/ready", probes.ReadyApi.as_view(), name="health-ready"),
    path("health/ready/", probes.ReadySlashApi.as_view()),
    path("events/", events.EventsApi.as_view(), name="events"),
    path("events/batch/", events.EventsBatchApi.as_view(), name="events-batch"),
    path("search/", search.SearchApi.as_view(), name="search"),
    path("items/", items.ItemsApi.as_view(), name="items"),
    path("memories/", memories.MemoryListApi.as_view(), name="memories"),
    path("memories/<uuid:memory_id>/", memories.MemoryApi.as_view(), name="memory"),
    path(
        "memories/<uuid:memory_id>/feedback/",
        memories.MemoryFeedbackApi.as_view(),
        name="memory-feedback",
    ),
    # POST a client's export document to create the client again (no reference in the
    # path, so no client reference can collide with it).
    path("clients/", clients.ClientImportApi.as_view(), name="client-import"),
    path("clients/<str:ref>/", clients.ClientApi.as_view(), name="client"),
    path("clients/<str:ref>/export/", clients.ClientExportApi.as_view(), name="client-export"),
    path(
        "clients/<str:ref>/advisors/",
        client_record.ClientAdvisorsApi.as_view(),
        name="client-advisors",
    ),
    path("tools/", tools.ToolsApi.as_view(), name="tools"),
    path("webhooks/", webhooks.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<uuid:endpoint_id>/", webhooks.WebhookApi.as_view(), name="webhook"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its script as a file (?script): no inline script (CSP).
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api:schema", template_name="memories/api_docs.html"
        ),
        name="docs",
    ),
    path(
        "memories/<uuid:memory_id>/history/",
        memories.MemoryHistoryApi.as_view(),
        name="memory-history",
    ),
]
