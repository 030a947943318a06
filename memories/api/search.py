"""Search: the memories most relevant to a query; with ``explain``, why (score components,
evidence)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, explain_asked, tenant_of
from memories.api.inputs import SearchInSerializer
from memories.api.outputs import hit_data
from memories.api.shapes import (
    SearchOutSerializer,
)
from memories.services.retrieval import Filters, memories_search


def _filters(data: dict, user, client) -> Filters:
    asked = Filters(
        tier=tuple(data.get("tier") or ()),
        kind=tuple(data.get("kind") or ()),
        status=tuple(data.get("status") or ()),
        tags=tuple(data.get("tags") or ()),
        since=data.get("since"),
        until=data.get("until"),
        as_of=data.get("as_of"),
        speakers=tuple(s.casefold() for s in data.get("speaker") or ()),
        happened_since=data.get("happened_since"),
        happened_until=data.get("happened_until"),
    )
    return permissions.readable_filters(user, client, asked)


class SearchApi(BaseApiView):
    """The memories most relevant to ``query`` for one client; with ``explain``, why."""

    read_methods = ("POST", "OPTIONS")

    @extend_schema(
        request=SearchInSerializer,
        parameters=[docs.EXPLAIN_PARAMETER],
        examples=[docs.SEARCH_REQUEST],
        responses={
            **docs.ok(
                SearchOutSerializer,
                "ranked",
                docs.SEARCH_RESULT,
                more={"ranked, explained": docs.SEARCH_EXPLAINED},
            ),
            **docs.BODY_ERRORS,
        },
        summary="The memories most relevant to a query",
        operation_id="search",
    )
    def post(self, request):
        serializer = SearchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        explain = explain_asked(request, data)
        tenant = tenant_of(request)
        client = permissions.client_for_read(request.user, tenant, data["client"])
        hits = memories_search(
            client=client,
            query=data["query"],
            k=data["k"],
            filters=_filters(data["filters"], request.user, client),
            with_evidence=True,
            budget_chars=data["budget_chars"],
        )
        return Response({"results": [hit_data(h, explain=explain) for h in hits]})
