"""Per-client profile: stable facts (static) and recent activity (dynamic), stored and
rebuilt from memories after a write that touches the client, so reads scan memories only
for the first read after such a write."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from memories.models import Category, Client, Kind, Memory, unexpired
from memories.selectors.stable import STATIC_CATEGORIES, STATIC_KINDS, STATIC_MIN_CONFIDENCE
from profiles.models import Profile

DYNAMIC_WINDOW = timedelta(days=30)
LIMIT = 20


ENTRY_FIELDS = (
    "tenant_id",
    "client_id",
    "content",
    "kind",
    "category",
    "confidence",
    "observed_at",
)


def _entry(memory: Memory) -> dict:
    return {
        "memory": str(memory.pk),
        "text": memory.content,
        "kind": memory.kind,
        "category": memory.category,
        "confidence": memory.confidence,
        "observed_at": memory.observed_at.isoformat(),
    }


def profile_build(*, client, now=None) -> tuple[list[dict], list[dict]]:
    """The profile as the client's memory holds it at ``now``: (static, dynamic)."""
    now = now or timezone.now()
    # Only what an entry shows (and the tenant, which opens an encrypted tenant's content).
    live = Memory.objects.current(now).filter(client=client).only(*ENTRY_FIELDS)
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
        .exclude(expires_at__lte=now)  # a plan whose day has gone by is no longer ahead
        .order_by("-last_seen_at")[:LIMIT]
    )
    return [_entry(m) for m in static], [_entry(m) for m in dynamic]


@transaction.atomic
def profile_refresh(*, client) -> Profile:
    now = timezone.now()
    static, dynamic = profile_build(client=client, now=now)
    profile, created = Profile.objects.select_for_update().get_or_create(
        client=client, defaults={"tenant_id": client.tenant_id}
    )
    if not created and (profile.static, profile.dynamic) == (static, dynamic):
        # It says what it said (a restatement, a memory outside the profile): the same
        # version, only checked again now (the scheduled refresh goes by that time).
        Profile.objects.filter(pk=profile.pk).update(refreshed_at=now)
        profile.refreshed_at = now
        return profile
    profile.static, profile.dynamic = static, dynamic
    profile.version += 1
    profile.refreshed_at = now
    profile.save()
    return profile


def profile_for(client) -> Profile:
    """The client's profile as memory holds it now: the stored one, or, when a write marked
    it stale (``memories.services.write.staleness``) or there is none yet, rebuilt first.

    This is what makes a decision, a forget, a tier move or a job visible to the very next
    context call and page, whether or not a worker has run the refresh queued for it."""
    stored = (
        Profile.objects.filter(client_id=client.pk)
        .annotate(stale_since=F("client__profile_stale_since"))
        .first()
    )
    if stored is not None and stored.stale_since is None and not _outlived(stored):
        return stored
    return _rebuild(client, stored)


def _outlived(stored: Profile) -> bool:
    """Whether a memory the stored profile shows has expired since it was built (operational
    context past its ``expires_at``): the profile shows what holds at read time."""
    ids = [entry["memory"] for part in (stored.static, stored.dynamic) for entry in part]
    return bool(ids) and (
        Memory.objects.filter(pk__in=ids, expires_at__lte=timezone.now())
        .exclude(unexpired(timezone.now()))
        .exists()
    )


def _rebuild(client, stored: Profile | None) -> Profile:
    """Rebuild and store the profile, clearing the mark, under the client's row lock. If a
    write (or another rebuild) holds that lock, build it without storing: what is committed
    is read either way, and the holder leaves the mark for the next reader or the worker."""
    with transaction.atomic():
        claimed = (
            Client.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=client.pk)
            .first()
        )
        if claimed is not None:
            profile = profile_refresh(client=claimed)
            Client.objects.filter(pk=claimed.pk).update(profile_stale_since=None)
            return profile
    now = timezone.now()
    static, dynamic = profile_build(client=client, now=now)
    return Profile(
        tenant_id=client.tenant_id,
        client=client,
        static=static,
        dynamic=dynamic,
        version=stored.version if stored is not None else 0,
        refreshed_at=now,
    )
