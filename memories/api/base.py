"""What every API view stands on: the base view (authentication, permissions, throttling,
errors) and the two questions most views ask of a request: which tenant, and who acts."""

from __future__ import annotations

from typing import cast

from django.core.exceptions import PermissionDenied
from rest_framework import exceptions, serializers
from rest_framework.views import APIView

from memories.api.throttling import ReadRateThrottle, WriteRateThrottle
from memories.models import ApiKey


class BaseApiView(APIView):
    """Every API view: authentication (API key, or a browser session with its CSRF
    check), permissions (authenticated; each view then asks ``memories.permissions``),
    throttling per API key with separate read and write budgets, and the one error
    format (``memories.api.errors``). A view whose POST only reads (search, context)
    lists it in ``read_methods``, so it spends the read budget."""

    throttle_classes = [ReadRateThrottle, WriteRateThrottle]
    read_methods: tuple[str, ...] = ("GET", "HEAD", "OPTIONS")

    def check_throttles(self, request):
        throttles = cast(list[ReadRateThrottle | WriteRateThrottle], self.get_throttles())
        for throttle in throttles:
            if not throttle.allow_request(request, self):
                raise exceptions.Throttled(
                    wait=throttle.wait(),
                    detail=f"Too many requests for this API key: the limit is "
                    f"{throttle.describe()}.",
                )


def tenant_of(request):
    key = request.auth
    if isinstance(key, ApiKey):
        return key.tenant
    tenants = {m.tenant for m in request.user.memberships.select_related("tenant")}
    if len(tenants) != 1:
        raise PermissionDenied("Use an API key: it says which tenant the request is for.")
    return tenants.pop()


def actor_label(request) -> str:
    key = request.auth
    if isinstance(key, ApiKey):
        return f"{request.user.get_username()} (key {key.prefix})"
    return request.user.get_username()


_TRUE, _FALSE = ("true", "1"), ("false", "0")


def explain_asked(request, data: dict) -> bool:
    """Whether the answer should say why each result ranked where it did: ``explain`` in
    the body, or ``?explain=true`` (as a GET would ask it, and a quick curl)."""
    raw = request.query_params.get("explain")
    if raw is None or raw.lower() in _FALSE:
        return bool(data["explain"])
    if raw.lower() in _TRUE:
        return True
    raise serializers.ValidationError({"explain": [f"explain must be true or false, not {raw!r}."]})
