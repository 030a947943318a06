"""Filters that turn stored values into words of the page's language."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language_info, pgettext
from django.utils.translation import gettext_lazy as _

from memories.models import Category
from memories.pages.language import supported

register = template.Library()

# A tier's short name, as the badges show it (the model's labels are the long ones).
TIER_NAMES = {"core": _("core"), "recall": _("recall"), "archival": _("archival")}


@register.filter
def tier_name(value: str) -> str:
    return str(TIER_NAMES.get(value, value))


# The pages' own languages by name, as a sentence says them ("speaks Italian", "parla
# italiano"); others get Django's names.
LANGUAGE_NAMES = {"en": _("English"), "it": _("Italian"), "es": _("Spanish")}


@register.filter
def language_name(code: str) -> str:
    """A language code ("it", "es-ES", "italian") as its name in the page's language; a code
    neither memoryhub nor Django knows stays as it was given."""
    found = supported(code) or (code or "").strip().lower().replace("_", "-").split("-")[0]
    if found in LANGUAGE_NAMES:
        return str(LANGUAGE_NAMES[found])
    try:
        return str(get_language_info(found)["name_translated"])
    except KeyError:
        return code


# Why a memory left the answers (memories.selectors.memory.status_change), naming the
# memory that took its place: %(other)s is a link to it, or "another memory".
CHANGES = {
    "forgotten": _("forgotten on request"),
    "corrected": _("corrected: %(other)s replaced it"),
    "undone": _("the correction of %(other)s was undone"),
    "accept_new": _("in review, %(other)s was accepted in its place"),
    "keep_old": _("in review, %(other)s was kept instead"),
    "merge": _("in review, it was merged into %(other)s"),
    "against": _("in review, against %(other)s"),
    "updated": _("%(other)s, a newer statement, updates it"),
    "merged": _("merged into %(other)s"),
}


@register.filter
def change_sentence(change) -> SafeString:
    """``change`` (a ``StatusChange``) in words, its other memory a link."""
    if change.other is not None:
        other = format_html(
            '<a href="{}">“{}”</a>',
            reverse("memories:memory", args=[change.other.pk]),
            change.other.content,
        )
    else:
        other = format_html("{}", _("another memory"))
    # The translated sentence is the page's own text; only the memory is escaped.
    return SafeString(str(CHANGES[change.what]) % {"other": other})


@register.filter
def category_name(value: str) -> str:
    """A memory's category ("fact") as the pages name it ("Fatto" in Italian)."""
    return str(Category(value).label) if value in Category.values else value


@register.filter
def actor_name(label: str) -> str:
    """Who an audit entry names: a person's login as it is; memoryhub's own work (stored as
    "system", ``memories.services.tenancy.audit``) in the page's language."""
    return pgettext("audit actor", "system") if label == "system" else label
