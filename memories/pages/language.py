"""The language the pages speak to a person, decided in one place, and the header's picker.

In this order, the first that names a language the pages have:

1. what the person chose in the header (``UserSettings.language``);
2. for a client, a prospect or an heir on their own pages: their client's language (an
   heir without one: the family's, their parent client's);
3. the browser's (``Accept-Language``, as ``LocaleMiddleware`` reads it);
4. the language of the person's tenant (``Tenant.language``, the one its memories are
   stemmed in);
5. ``LANGUAGE_CODE``.

The API and MCP always answer in English (agents read them, and their error messages are
part of the contract): ``LocaleMiddleware`` is overridden there too.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db import InterfaceError, OperationalError
from django.db.models import OuterRef, Subquery
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django.utils.translation.trans_real import parse_accept_lang_header
from django.views.decorators.http import require_POST

from memories.models import Membership
from memories.services.tenancy.members import user_language_set

DATABASE_ERRORS = (OperationalError, InterfaceError)
ENGLISH_ONLY_PREFIXES = ("/api/", "/mcp", "/metrics")
# Tenant.language names a text-search configuration: the ones the pages speak.
TENANT_LANGUAGES = {"english": "en", "italian": "it", "spanish": "es"}


def supported(code: str | None) -> str | None:
    """``code`` as one of ``LANGUAGES`` ("it-IT", "IT", "italian" → "it"), or None."""
    if not code:
        return None
    code = code.strip().lower().replace("_", "-")
    code = TENANT_LANGUAGES.get(code, code)
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def browser_language(request) -> str | None:
    """The first language of ``Accept-Language`` the pages have, if any."""
    header = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
    for code, _quality in parse_accept_lang_header(header):
        if code != "*" and (found := supported(code)):
            return found
    return None


def _saved_languages(user) -> dict:
    """In one query: the person's choice, their client's language and their family's (a
    client, prospect or heir), and their first tenant's."""
    tenant = Membership.objects.filter(user=OuterRef("pk")).order_by("created_at", "pk")
    found = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(tenant_language=Subquery(tenant.values("tenant__language")[:1]))
        .values(
            "page_settings__language",
            "client_profile__language",
            "client_profile__family_parent__language",
            "tenant_language",
        )
        .first()
    )
    return found or {}


def page_language(request) -> str:
    """The language of this request's page (the module's docstring says the order)."""
    if request.path.startswith(ENGLISH_ONLY_PREFIXES):
        return settings.LANGUAGE_CODE
    try:
        user = getattr(request, "user", None)
        saved = _saved_languages(user) if user is not None and user.is_authenticated else {}
    except DATABASE_ERRORS:  # the page says the database is down, in the browser's language
        saved = {}
    return (
        supported(saved.get("page_settings__language"))
        or supported(saved.get("client_profile__language"))
        or supported(saved.get("client_profile__family_parent__language"))
        or browser_language(request)
        or supported(saved.get("tenant_language"))
        or settings.LANGUAGE_CODE
    )


class LanguageForm(forms.Form):
    # Empty: automatic (the browser's, then the client's or the tenant's).
    language = forms.ChoiceField(
        choices=[("", _("Automatic")), *settings.LANGUAGES],
        required=False,
        error_messages={"invalid_choice": _("Choose one of the languages of the list.")},
    )


@login_required
@require_POST
def language_set(request):
    """The header's picker: sets the signed-in person's own language, nobody else's.
    Answers 400 (nothing changed) for a language the pages do not have."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return HttpResponse(
            " ".join(str(e) for e in form.errors["language"]),
            status=400,
            content_type="text/plain",
        )
    user_language_set(user=request.user, language=form.cleaned_data["language"])
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/"
    if request.htmx:
        # The whole page speaks the new language: htmx reloads it.
        return HttpResponse(status=204, headers={"HX-Refresh": "true"})
    return redirect(back)
