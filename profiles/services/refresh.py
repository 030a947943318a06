"""Which profiles to rebuild, claimed so that two workers never rebuild the same one.

A client's profile is rebuilt when a write marked it stale (``Client.profile_stale_since``,
see ``memories.services.write.staleness``) and, by the scheduled job, when it is older than
PROFILE_MAX_AGE_HOURS: its dynamic half is "the last 30 days" and slides with time.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from memories.conf import setting
from memories.models import Client
from memories.services.jobs.claims import claimed_in_batches
from memories.services.jobs.runner import JobCounts
from profiles.models import Profile
from profiles.services.profile import profile_refresh


def profiles_refresh_stale(*, client_ids=None, tenant_id=None) -> int:
    """Rebuild the stale profiles (of ``client_ids``, or all); returns how many. Each batch
    locks its clients (SKIP LOCKED), rebuilds and clears the mark in one transaction: a
    write that lands meanwhile waits for the lock, then marks the client stale again. Of
    ``client_ids`` (a write's queued refresh), those another write holds are waited for."""
    size = int(setting("JOB_BATCH_SIZE"))
    stale = Client.objects.filter(profile_stale_since__isnull=False)
    if client_ids is not None:
        stale = stale.filter(pk__in=list(client_ids))
    if tenant_id is not None:
        stale = stale.filter(tenant_id=tenant_id)

    def claim() -> list:
        # FOR NO KEY UPDATE: a write in progress holds its client's row FOR KEY SHARE (its
        # events and memories point at it), which FOR UPDATE would skip; and that write,
        # finding the mark already set, queues no refresh of its own.
        return list(
            stale.select_for_update(skip_locked=True, no_key=True).order_by(
                "profile_stale_since", "pk"
            )[:size]
        )

    def work(batch: list) -> None:
        for client in batch:
            profile_refresh(client=client)
        Client.objects.filter(pk__in=[c.pk for c in batch]).update(profile_stale_since=None)

    done = claimed_in_batches(claim, work)
    if client_ids is not None:
        # The refresh a write queued: a client skipped above is held by another write in
        # flight, which found the mark set and so queued nothing; left alone it would stay
        # stale until the scheduled job. Wait for that write (it holds the row only until
        # it commits), then rebuild with what it stored. In id order, as writes lock them.
        with transaction.atomic():
            held = list(stale.select_for_update(no_key=True).order_by("pk"))
            if held:
                work(held)
        done += len(held)
    return done


def profiles_refresh_aged(*, tenant_id=None) -> int:
    size = int(setting("JOB_BATCH_SIZE"))
    cutoff = timezone.now() - timedelta(hours=float(setting("PROFILE_MAX_AGE_HOURS")))
    aged = Profile.objects.filter(refreshed_at__lt=cutoff)
    if tenant_id is not None:
        aged = aged.filter(tenant_id=tenant_id)

    def claim() -> list:
        return list(
            aged.select_for_update(skip_locked=True, of=("self",))
            .select_related("client")
            .order_by("refreshed_at", "pk")[:size]
        )

    def work(batch: list) -> None:
        for profile in batch:
            profile_refresh(client=profile.client)

    return claimed_in_batches(claim, work)


def profiles_refresh_due(*, tenant_id=None, counts: JobCounts) -> None:
    """The scheduled job: stale profiles, then profiles past their age."""
    counts.add("stale", profiles_refresh_stale(tenant_id=tenant_id))
    counts.add("aged", profiles_refresh_aged(tenant_id=tenant_id))
