"""The login forms, of the site and of the admin: every attempt is counted and a locked
account or address is refused before the password is checked
(``memories.services.tenancy.logins``)."""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import ngettext_lazy

from memories.conf import setting
from memories.services.tenancy.logins import (
    login_attempt,
    login_failed,
    login_succeeded,
)

LOCKED = ngettext_lazy(
    "Too many failed attempts; try again in %(minutes)s minute.",
    "Too many failed attempts; try again in %(minutes)s minutes.",
    "minutes",
)


def client_address(request) -> str:
    """The caller's address: the socket's, or, behind ``TRUSTED_PROXIES`` proxies, the
    one the outermost of them saw (``X-Forwarded-For`` is written right to left, each
    proxy adding whom it heard from; what a client wrote itself lies further left)."""
    proxies = int(setting("TRUSTED_PROXIES"))
    if proxies > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= proxies:
            return forwarded[-proxies][:100]
    return request.META.get("REMOTE_ADDR", "")[:100]


class ThrottledLogin(AuthenticationForm):
    """``AuthenticationForm.clean`` with the attempt counted first."""

    locked_minutes: int | None = None

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return super().clean()
        attempt = login_attempt(username=username, address=client_address(self.request))
        if attempt.refused:
            raise self._locked(attempt.locked_minutes())
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            if self.user_cache is not None:  # the right password, but not allowed in here
                login_succeeded(attempt)
                raise
            login_failed(attempt)
            if (minutes := attempt.locked_minutes(after_failure=True)) is not None:
                raise self._locked(minutes) from None
            raise
        login_succeeded(attempt)
        return cleaned

    def _locked(self, minutes: int | None) -> forms.ValidationError:
        self.locked_minutes = minutes
        return forms.ValidationError(LOCKED, code="locked", params={"minutes": minutes})


class ThrottledAdminLogin(ThrottledLogin, AdminAuthenticationForm):
    """The admin's login form (staff only), counted the same way."""


class LoginView(auth_views.LoginView):
    """The site's login page; a refused attempt answers 429 with ``Retry-After``."""

    form_class = ThrottledLogin

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.locked_minutes is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.locked_minutes * 60)
        return response
