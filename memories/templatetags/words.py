"""Filters that turn stored values into words of the page's language."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language_info
from django.utils.translation import gettext_lazy as _

from memories.pages.language import supported

register = template.Library()

# A tier's short name, as the badges show it (the model's labels are the long ones).
TIER_NAMES = {"core": _("core"), "recall": _("recall"), "archival": _("archival")}


@register.filter
def tier_name(value: str) -> str:
    return str(TIER_NAMES.get(value, value))


@register.filter
def occurred(memory) -> SafeString:
    """When what ``memory`` tells of happens, at its precision, as a ``<time>``."""
    return SafeString(render_to_string("partials/occurred.html", {"m": memory}).strip())


@register.filter
def language_name(code: str) -> str:
    """A language code ("it", "es-ES", "italian") as its name in the page's language; a code
    the pages do not know stays as it was given."""
    found = supported(code)
    return get_language_info(found)["name_translated"] if found else code
