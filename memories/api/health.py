"""The health endpoint: database, pgvector, embedding providers and queue."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions as drf_permissions
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView
from memories.middleware import DATABASE_ERRORS, RETRY_AFTER_SECONDS
from memories.models import ApiKey
from memories.selectors.health import health_report


class HealthApi(BaseApiView):
    """Database, pgvector, embedding providers and queue, for those who operate the system
    (``permissions.can_see_health_details``); any other caller with a key gets the status
    and whom the key belongs to. Open to probes, which get the status alone: versions,
    models and queue counts tell a stranger what to attack. With the database down nobody
    can be authenticated, so everyone gets the status alone; what failed goes to the log."""

    permission_classes = [drf_permissions.AllowAny]

    def initial(self, request, *args, **kwargs):
        self.database_down = False
        try:
            super().initial(request, *args, **kwargs)
        except DATABASE_ERRORS:
            # Authentication and the rate limit need the database; the probe still gets
            # its report (which says the database is down), as an anonymous caller.
            self.database_down = True

    @extend_schema(
        responses={
            **docs.ok(
                OpenApiTypes.OBJECT,
                "healthy, with the caller's key (the details for supervisors and admins; "
                "other keys get the status and ``caller``, no key the status alone)",
                docs.HEALTH,
            ),
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
        if self.database_down or not request.user.is_authenticated:
            report = {"status": report["status"], "caller": None}
        else:
            key = request.auth if isinstance(request.auth, ApiKey) else None
            tenant = key.tenant if key else None
            if not permissions.can_see_health_details(request.user, tenant):
                report = {"status": report["status"]}
            report["caller"] = {
                "user": request.user.get_username(),
                "tenant": tenant.slug if tenant else None,
                "role": permissions.role_in(request.user, tenant) if tenant else None,
                "key": key.prefix if key else None,
            }
        if report["status"] == "error":
            return Response(report, status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        return Response(report, status=200)
