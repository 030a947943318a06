"""Liveness and readiness for orchestrators and load balancers.

``live`` answers as long as the process serves requests, and touches nothing else: a
database outage must not get healthy web processes restarted. ``ready`` says whether this
process can serve traffic now, that is whether the database answers; when it does not,
503 with ``Retry-After`` and no detail (the error names hosts and socket paths: it goes to
the log, with the request id). Neither authenticates nor rate-limits: both would need the
database.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions as drf_permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.api import docs
from memoryhub import replica

logger = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5


class _Probe(APIView):
    authentication_classes: list = []
    permission_classes = [drf_permissions.AllowAny]
    throttle_classes: list = []


class LiveApi(_Probe):
    @extend_schema(
        responses=docs.ok(OpenApiTypes.OBJECT, "the process serves", {"status": "live"}),
        auth=[],
        summary="Liveness: the process serves requests",
        operation_id="health_live",
    )
    def get(self, request):
        return Response({"status": "live"})


def database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.warning("readiness: the database does not answer", exc_info=True)
        return False
    return True


class ReadyApi(_Probe):
    @extend_schema(
        responses={
            **docs.ok(
                OpenApiTypes.OBJECT,
                "ready (``replica``: with a read replica, whether it serves reads: ok, behind, "
                "down or not_standby; reads go to the primary meanwhile)",
                {"status": "ready", "database": "ok", "replica": "ok"},
            ),
            **docs.ok(
                OpenApiTypes.OBJECT,
                "the database is down (Retry-After says when to ask again)",
                {"status": "unavailable", "database": "unavailable"},
                503,
            ),
        },
        auth=[],
        summary="Readiness: the database answers",
        operation_id="health_ready",
    )
    def get(self, request):
        if database_answers():
            answer = {"status": "ready", "database": "ok"}
            if replica.configured():
                # Reads go to the primary meanwhile: a replica down is not unready.
                answer["replica"] = replica.replica_health.probe().status
            return Response(answer)
        return Response(
            {"status": "unavailable", "database": "unavailable"},
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )


class LiveSlashApi(LiveApi):
    """``health/live/``: the same probe, left out of the schema (one operation each)."""

    schema = None


class ReadySlashApi(ReadyApi):
    schema = None
