"""Items: the newest live version of each key a framework's store put for a client (see
``memories.services.write.items``)."""

from __future__ import annotations

from django.db.models import Exists, Max, Min, OuterRef

from memories.models import Client, Event, ItemDeletion


def items_of(
    client: Client,
    *,
    key: str = "",
    prefix: str = "",
    events=(),
    limit: int = 50,
    offset: int = 0,
) -> list[dict]:
    """The client's items, the newest put first: ``{"key", "event", "created_at",
    "updated_at"}`` (the newest version, when the key was first and last put), narrowed to
    one ``key``, keys starting with ``prefix``, or the items whose newest version is one of
    ``events``. A deleted item is none until it is put again."""
    versions = Event.objects.filter(client=client).exclude(item_key="")
    if key:
        versions = versions.filter(item_key=key)
    if prefix:
        versions = versions.filter(item_key__startswith=prefix)
    newest = (
        versions.order_by("item_key", "-received_at")
        .distinct("item_key")
        .values_list("pk", flat=True)
    )
    deleted = ItemDeletion.objects.filter(
        client=client, key=OuterRef("item_key"), deleted_at__gte=OuterRef("received_at")
    )
    live = Event.objects.filter(pk__in=list(newest)).exclude(Exists(deleted))
    if events:
        live = live.filter(pk__in=list(events))
    page = list(
        live.select_related("client", "session").order_by("-received_at", "item_key")[
            offset : offset + limit
        ]
    )
    spans = {
        row["item_key"]: row
        for row in versions.filter(item_key__in=[e.item_key for e in page])
        .values("item_key")
        .annotate(first=Min("received_at"), last=Max("received_at"))
    }
    return [
        {
            "key": event.item_key,
            "event": event,
            "created_at": spans[event.item_key]["first"],
            "updated_at": spans[event.item_key]["last"],
        }
        for event in page
    ]
