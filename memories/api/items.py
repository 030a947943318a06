"""Items: what a framework's store put under the caller's key (``item_key`` on events),
the newest version of each; and deleting one (its memories forgotten)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.inputs import ItemDeleteInSerializer, ItemsInSerializer
from memories.api.outputs import item_data
from memories.api.shapes import ItemDeletedSerializer, ItemsOutSerializer
from memories.selectors.items import items_of
from memories.services.write.items import item_delete

ITEMS_READ_BY_WRITERS = (
    "Items hold what was put as it was put: the roles that may write memory read them."
)


class ItemsApi(BaseApiView):
    @extend_schema(
        parameters=[ItemsInSerializer, docs.CLIENT_PARAMETER],
        responses={
            **docs.ok(ItemsOutSerializer, "newest first", docs.ITEMS),
            **docs.QUERY_ERRORS,
        },
        summary="A client's items (a framework store's keys), the newest version of each",
        operation_id="items_list",
    )
    def get(self, request):
        query = {**request.query_params.dict(), "event": request.query_params.getlist("event")}
        serializer = ItemsInSerializer(data=query)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        tenant = tenant_of(request)
        client = permissions.client_for_read(request.user, tenant, data["client"])
        if not permissions.can_write_memories(request.user, tenant):
            raise PermissionDenied(ITEMS_READ_BY_WRITERS)
        found = items_of(
            client,
            key=data["key"],
            prefix=data["prefix"],
            events=data["event"],
            limit=data["limit"],
            offset=data["offset"],
        )
        return Response({"results": [item_data(item) for item in found]})

    @extend_schema(
        parameters=[ItemDeleteInSerializer, docs.CLIENT_PARAMETER, docs.ITEM_KEY_PARAMETER],
        responses={
            **docs.ok(ItemDeletedSerializer, "deleted", docs.ITEM_DELETED),
            **docs.QUERY_ERRORS,
        },
        summary="Delete an item: the memories its versions taught are forgotten",
        operation_id="item_delete",
    )
    def delete(self, request):
        serializer = ItemDeleteInSerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        client = permissions.client_for_write(request.user, tenant_of(request), data["client"])
        forgotten = None
        if client is not None:
            forgotten = item_delete(
                client=client,
                key=data["key"],
                actor=request.user,
                actor_label=actor_label(request),
            )
        if forgotten is None:
            raise NotFound(f"No item {data['key']!r} for client {data['client']!r}.")
        return Response({"key": data["key"], "forgotten": [str(m) for m in forgotten]})
