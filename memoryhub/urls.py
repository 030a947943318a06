from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from curation import urls as curation_pages
from curation.api import urls as curation_api
from mcp_server.views import mcp_needs_asgi
from memories import urls as memory_pages
from memories.api import urls as memory_api
from memories.pages import language, login, views
from memoryhub.observability.metrics import metrics_view
from profiles import urls as profile_pages
from profiles.api import urls as profile_api

# Each app routes its pages in ``<app>/urls.py`` and its API in ``<app>/api/urls.py``; every
# route is wired here, the whole API under /api/v1/.

urlpatterns = [
    path("", views.home, name="home"),
    # Browsers ask for it whatever the page says (the admin, the API docs, JSON answers).
    path("favicon.ico", RedirectView.as_view(url=static("memoryhub/icon.svg"), permanent=True)),
    path("login/", login.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("language/", language.language_set, name="language"),
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    path("api/v1/", include((memory_api.api_urlpatterns + profile_api.api_urlpatterns, "api"))),
    path("api/v1/", include((curation_api.api_urlpatterns, "curation_api"))),
    path("", include((memory_pages.page_urlpatterns, "memories"))),
    path("", include((profile_pages.page_urlpatterns, "profiles"))),
    path("review/", include((curation_pages.page_urlpatterns, "curation"))),
    # Only reached under WSGI: the ASGI application routes /mcp/ to the MCP transport.
    path("mcp/", mcp_needs_asgi, name="mcp"),
]

handler404 = "memories.api.errors.page_not_found"
handler500 = "memories.api.errors.server_error"
