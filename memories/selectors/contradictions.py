"""Live facts that may contradict each other: several memories of one client, all live,
about the same attribute (three live contact preferences). The write path settles a
contradiction as it comes in (a supersede, or a review); these are the ones left standing
side by side, by a "keep both", an import, or statements that came in out of order.

Roles (``relationship:son``) are left out: a client may have two sons. The comparison is
on the attribute key alone, which an encrypted tenant stores as a keyed token too, so the
same query holds for every tenant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef

from memories.models import Memory
from memories.models.records import MemoryQuerySet

ROLES = "relationship:"
_TOKEN = re.compile(r"k[0-9a-f]{20}")


@dataclass(frozen=True)
class FactGroup:
    attribute: str
    label: str  # the attribute in words: "contact channel", "preference: tobacco"
    memories: list[Memory]


def _candidates(client_filter) -> MemoryQuerySet:
    return (
        Memory.objects.current()
        .filter(**client_filter)
        .exclude(attribute="")
        .exclude(attribute__startswith=ROLES)
    )


def attribute_label(attribute: str) -> str:
    head, colon, tail = attribute.partition(":")
    head = head.replace("_", " ")
    if not colon or _TOKEN.fullmatch(tail):
        return head
    return f"{head}: {tail.replace('_', ' ')}"


def contradictory_facts(client) -> list[FactGroup]:
    """The attributes of ``client`` that more than one live memory speaks of, each with its
    memories, newest first."""
    live = _candidates({"client": client})
    shared = list(
        live.order_by()
        .values("attribute")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .values_list("attribute", flat=True)
    )
    if not shared:
        return []
    groups: dict[str, list[Memory]] = {}
    for memory in live.filter(attribute__in=shared).order_by("attribute", "-observed_at"):
        groups.setdefault(memory.attribute, []).append(memory)
    return [FactGroup(a, attribute_label(a), ms) for a, ms in sorted(groups.items())]


def has_contradictory_facts() -> Exists:
    """For annotating clients: whether some attribute has more than one live memory."""
    return Exists(
        _candidates({"client": OuterRef("pk")})
        .order_by()
        .values("attribute")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )
