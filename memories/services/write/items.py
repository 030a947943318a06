"""Items: what a framework's store keeps under the caller's key (a LangGraph store's
``put(namespace, key, value)``). Each put is an event with that ``item_key``; the newest
is the item. Nothing is overwritten: a new version leaves the old events as they were and
forgets the memories only they taught (a statement the new version says again keeps its
memory); deleting the item forgets the memories its versions taught and records the
deletion (events are immutable), so that the key answers nothing until it is put again."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from memories.models import Client, Event, Evidence, ItemDeletion, Memory
from memories.services.write.lifecycle import memory_forget


def _forget_taught_only_by(event_ids: set, *, actor, actor_label: str, reason: str) -> list:
    """Forget the live memories whose every piece of evidence is one of ``event_ids``."""
    if not event_ids:
        return []
    rests_on: dict = defaultdict(set)
    candidates = Memory.objects.current().filter(evidence__event_id__in=event_ids).distinct()
    for memory_id, event_id in Evidence.objects.filter(memory__in=candidates).values_list(
        "memory_id", "event_id"
    ):
        rests_on[memory_id].add(event_id)
    forgotten = []
    for memory in candidates.order_by("created_at"):
        if rests_on[memory.pk] <= event_ids:
            memory_forget(memory=memory, actor=actor, actor_label=actor_label, reason=reason)
            forgotten.append(memory.pk)
    return forgotten


def items_supersede(*, results, actor, actor_label: str) -> None:
    """For each new event with an ``item_key``: the item's earlier versions give way."""
    for result in results:
        event = result.event
        if not result.created or not event.item_key:
            continue
        earlier = set(
            Event.objects.filter(client_id=event.client_id, item_key=event.item_key)
            .exclude(pk=event.pk)
            .values_list("pk", flat=True)
        )
        _forget_taught_only_by(
            earlier,
            actor=actor,
            actor_label=actor_label,
            reason=f"item {event.item_key!r} was put again",
        )


def item_delete(*, client: Client, key: str, actor, actor_label: str) -> list | None:
    """Delete the item ``key`` of ``client``: the ids of the memories forgotten, or None
    when there is no such item (never put, or deleted since its newest version)."""
    with transaction.atomic():
        # One deletion at a time per client: the check and the record go together.
        Client.objects.select_for_update().filter(pk=client.pk).first()
        versions = Event.objects.filter(client=client, item_key=key)
        newest = versions.order_by("-received_at").values_list("received_at", flat=True).first()
        deleted = (
            ItemDeletion.objects.filter(client=client, key=key)
            .order_by("-deleted_at")
            .values_list("deleted_at", flat=True)
            .first()
        )
        if newest is None or (deleted is not None and deleted >= newest):
            return None
        forgotten = _forget_taught_only_by(
            set(versions.values_list("pk", flat=True)),
            actor=actor,
            actor_label=actor_label,
            reason=f"item {key!r} was deleted",
        )
        ItemDeletion.objects.create(client=client, key=key, deleted_at=timezone.now())
        return forgotten
