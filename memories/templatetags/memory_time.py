"""When what a memory tells of happens, as a value a translated sentence can hold."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.simple_tag
def occurred(memory) -> str:
    """``memory``'s day at its precision, as ``partials/occurred.html`` writes it (a
    ``<time>`` element): ``{% occurred m as day %}{% blocktranslate %}happened {{ day }}…``
    keeps the sentence whole for translators."""
    return render_to_string("partials/occurred.html", {"m": memory})
