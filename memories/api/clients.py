"""Agent API (v1) for a client as a whole: the clients a key may see, erasure (the right
to be forgotten), export and import (portability). Its name, language and advisors:
``client_record``."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.client_record import ClientRecordApi
from memories.api.inputs import ClientListInSerializer
from memories.api.shapes import ClientListOutSerializer
from memories.services.client_data.erasure import client_erase
from memories.services.client_data.export import client_export
from memories.services.client_data.importing import client_import


class ClientApi(ClientRecordApi):
    """The right to be forgotten: everything held about one client, removed at once (and,
    from ``ClientRecordApi``, its name and language)."""

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "erased; only an audit tombstone remains", docs.ERASED),
            **docs.errors(401, 403, 404, 429),
        },
        summary="Erase a client: events, memories, vectors, profile, review items, key",
        operation_id="client_erase",
    )
    def delete(self, request, ref):
        client = permissions.client_for_erasure(request.user, tenant_of(request), ref)
        counts = client_erase(client=client, actor=request.user, actor_label=actor_label(request))
        return Response({"erased": {"client": ref, "counts": counts}})


class ClientExportApi(BaseApiView):
    """Portability: everything held about one client, as one JSON document."""

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        responses={
            **docs.ok(docs.CLIENT_DOCUMENT, "everything held about the client", docs.CLIENT_EXPORT),
            **docs.errors(401, 403, 404, 429),
        },
        summary="Export everything held about a client (JSON)",
        operation_id="client_export",
    )
    def get(self, request, ref):
        client = permissions.client_for_export(request.user, tenant_of(request), ref)
        return Response(client_export(client=client))


class ClientImportApi(BaseApiView):
    """The clients a key may see (GET); portability, the way back: a client recreated from
    its export document (POST)."""

    @extend_schema(
        parameters=[ClientListInSerializer],
        responses={
            **docs.ok(ClientListOutSerializer, "by reference", docs.CLIENT_LIST),
            **docs.errors(400, 401, 403, 429),
        },
        summary="The clients this key may see, by reference",
        operation_id="clients_list",
    )
    def get(self, request):
        serializer = ClientListInSerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        limit, offset = serializer.validated_data["limit"], serializer.validated_data["offset"]
        clients = list(
            permissions.clients_visible_to(request.user, tenant_of(request))
            .order_by("external_ref", "pk")
            .values("external_ref", "display_name", "language", "created_at")[
                offset : offset + limit + 1
            ]
        )
        return Response(
            {
                "results": [
                    {
                        "ref": c["external_ref"],
                        "display_name": c["display_name"],
                        "language": c["language"],
                        "created_at": c["created_at"],
                    }
                    for c in clients[:limit]
                ],
                "next_offset": offset + limit if len(clients) > limit else None,
            }
        )

    @extend_schema(
        request=docs.CLIENT_IMPORT_BODY,
        examples=[docs.CLIENT_IMPORT_REQUEST],
        description="The body is a document `GET /api/v1/clients/{ref}/export/` answered. "
        "Beyond the schema: every id is unique in the document and every reference "
        "(session, evidence event, relation ends, review memories) points to one of its "
        "own; session references, event external ids, evidence pairs and relation edges "
        "are unique per client; a relation joins two memories; a conflict review item has "
        "an other memory, and a decision only when decided.",
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "the client is back", docs.IMPORTED, 201),
            **docs.errors(400, 401, 403, 409, 413, 429),
        },
        summary="Import a client from its export (the document the export answered)",
        operation_id="client_import",
    )
    def post(self, request):
        tenant = tenant_of(request)
        if not permissions.can_import_client(request.user, tenant):
            raise PermissionDenied("Only a supervisor may import a client.")
        client = client_import(
            tenant=tenant,
            data=request.data,
            actor=request.user,
            actor_label=actor_label(request),
        )
        return Response(
            {"imported": {"client": client.external_ref, "id": str(client.pk)}}, status=201
        )
