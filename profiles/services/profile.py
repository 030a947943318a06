"""Per-client profile: stable facts (static) and recent activity (dynamic), rebuilt from
memories after each write that touches the client, so reads never scan for it."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memories.models import Category, Kind, Memory
from profiles.models import Profile

STATIC_CATEGORIES = (Category.PREFERENCE, Category.FACT, Category.RELATIONSHIP, Category.CONSTRAINT)
STATIC_KINDS = (Kind.SEMANTIC, Kind.PROCEDURAL, Kind.PRINCIPLE)
STATIC_MIN_CONFIDENCE = 0.7
DYNAMIC_WINDOW = timedelta(days=30)
LIMIT = 20


def _entry(memory: Memory) -> dict:
    return {
        "memory": str(memory.pk),
        "text": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "confidence": memory.confidence,
        "observed_at": memory.observed_at.isoformat(),
    }


@transaction.atomic
def profile_refresh(*, client) -> Profile:
    now = timezone.now()
    live = Memory.objects.current(now).filter(client=client)
    static = live.filter(
        kind__in=STATIC_KINDS,
        category__in=STATIC_CATEGORIES,
        confidence__gte=STATIC_MIN_CONFIDENCE,
    ).order_by("-importance", "-confidence", "-last_seen_at")[:LIMIT]
    dynamic = (
        live.filter(last_seen_at__gte=now - DYNAMIC_WINDOW)
        .filter(
            Q(category__in=(Category.GOAL, Category.EVENT))
            | Q(kind__in=(Kind.EPISODIC, Kind.OPERATIONAL, Kind.DECISION))
        )
        .order_by("-last_seen_at")[:LIMIT]
    )
    profile, _ = Profile.objects.select_for_update().get_or_create(
        client=client, defaults={"tenant_id": client.tenant_id}
    )
    profile.static = [_entry(m) for m in static]
    profile.dynamic = [_entry(m) for m in dynamic]
    profile.version += 1
    profile.refreshed_at = now
    profile.save()
    return profile


def profile_for(client) -> Profile:
    """The stored profile, built once if the client has none yet."""
    return Profile.objects.filter(client=client).first() or profile_refresh(client=client)
