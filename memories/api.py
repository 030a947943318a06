"""Agent API (v1). Thin views: input serializer → service or selector → output."""

from __future__ import annotations

from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.models import Membership
from memories.selectors import health_report


class BaseApiView(APIView):
    """Authentication, permissions and error format come from REST_FRAMEWORK settings."""


class HealthApi(BaseApiView):
    """Database, pgvector, embedding providers and queue. Open to probes; a caller with a
    key also learns who the key belongs to."""

    permission_classes = [permissions.AllowAny]

    def get(self, request):
        report = health_report()
        report["caller"] = None
        if request.user.is_authenticated:
            key = request.auth if hasattr(request.auth, "tenant") else None
            membership = (
                Membership.objects.filter(user=request.user, tenant=key.tenant).first()
                if key
                else None
            )
            report["caller"] = {
                "user": request.user.get_username(),
                "tenant": key.tenant.slug if key else None,
                "role": membership.role if membership else None,
                "key": key.prefix if key else None,
            }
        status = 200 if report["status"] != "error" else 503
        return Response(report, status=status)
