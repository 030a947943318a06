"""The health endpoint: database, pgvector, embedding providers and queue."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions as drf_permissions
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView
from memories.models import ApiKey
from memories.selectors.health import health_report


class HealthApi(BaseApiView):
    """Database, pgvector, embedding providers and queue. Open to probes; a caller with a
    key also learns who the key belongs to."""

    permission_classes = [drf_permissions.AllowAny]

    @extend_schema(
        responses={
            **docs.ok(OpenApiTypes.OBJECT, "healthy, with the caller's key", docs.HEALTH),
            **docs.ok(OpenApiTypes.OBJECT, "the database is down", docs.HEALTH_DOWN, 503),
            **docs.errors(401, 429),
        },
        auth=[],
        summary="Database, pgvector, embedding providers and queue",
        operation_id="health",
    )
    def get(self, request):
        report = health_report()
        report["caller"] = None
        if request.user.is_authenticated:
            key = request.auth if isinstance(request.auth, ApiKey) else None
            report["caller"] = {
                "user": request.user.get_username(),
                "tenant": key.tenant.slug if key else None,
                "role": permissions.role_in(request.user, key.tenant) if key else None,
                "key": key.prefix if key else None,
            }
        status = 200 if report["status"] != "error" else 503
        return Response(report, status=status)
