from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from memories import views
from memories.urls import api_urlpatterns
from profiles.urls import api_urlpatterns as profile_api_urlpatterns

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", include((api_urlpatterns + profile_api_urlpatterns, "api"))),
]

handler404 = "memories.api_errors.page_not_found"
handler500 = "memories.api_errors.server_error"
