"""One error format for every API answer: ``{"error": {"code", "message", "fields"}}``.

The DRF exception handler: validation errors, permission and not-found answers, the
domain errors services raise (``memories.errors``) and a database that cannot be reached
(503 with ``Retry-After``) all leave in that shape."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from memories.errors import DomainError
from memories.middleware import (
    DATABASE_ERRORS,
    DatabaseTrouble,
    database_trouble,
    database_trouble_page,
    log_database_error,
)


def _flatten(detail) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            field = key
            if isinstance(value, dict) and value and all(isinstance(k, int) for k in value):
                # a list's errors, by position: events[3].content
                for index, item in value.items():
                    if isinstance(item, dict):
                        for sub, messages in _flatten(item).items():
                            out[f"{field}[{index}].{sub}"] = messages
                    else:
                        items = item if isinstance(item, list) else [item]
                        out[f"{field}[{index}]"] = [str(m) for m in items]
            elif isinstance(value, dict):
                for sub, messages in _flatten(value).items():
                    # A nested object's own error belongs to the object: "events", not
                    # "events.non_field_errors".
                    name = field if sub == api_settings.NON_FIELD_ERRORS_KEY else f"{field}.{sub}"
                    out[name] = messages
            elif isinstance(value, list) and value and isinstance(value[0], dict):
                for index, item in enumerate(value):
                    for sub, messages in _flatten(item).items():
                        out[f"{field}[{index}].{sub}"] = messages
            else:
                out[field] = [str(v) for v in (value if isinstance(value, list) else [value])]
        return out
    return {}


def error_body(code: str, message: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _as_json(response, context):
    """Errors are JSON whatever the view renders (the schema's YAML, the docs' HTML)."""
    request = context.get("request")
    if request is not None and response is not None:
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = JSONRenderer.media_type
    return response


def exception_handler(exc, context):
    return _as_json(_handle(exc, context), context)


def database_trouble_json(trouble: DatabaseTrouble) -> JsonResponse:
    response = JsonResponse(error_body(trouble.code, trouble.message), status=503)
    response["Retry-After"] = str(trouble.retry_after)
    return response


def _handle(exc, context):
    if isinstance(exc, DATABASE_ERRORS):
        if (request := context.get("request")) is not None:
            log_database_error(request, exc)
        trouble = database_trouble(exc)
        return Response(
            error_body(trouble.code, trouble.message),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(trouble.retry_after)},
        )
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            error_body("too_large", f"The request body is larger than {limit} bytes."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status_code)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        if isinstance(exc.detail, list):
            message = " ".join(str(d) for d in exc.detail)
        else:
            message = "; ".join(
                f"{name}: {' '.join(messages)}" for name, messages in fields.items()
            )
        response.data = error_body("invalid", message or "Invalid input.", fields)
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        response.data = error_body(str(code), str(detail))
    return response


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def page_not_found(request, exception):
    """Outside any view (an unknown URL): JSON under /api/, the HTML page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            error_body("not_found", f"No API endpoint at {request.path}."), status=404
        )
    return defaults.page_not_found(request, exception)


def server_error(request):
    """Outside any view (a middleware's own query, the session saved on the way out), a
    database that cannot be reached is still a 503."""
    exc = sys.exc_info()[1]
    if isinstance(exc, DATABASE_ERRORS):
        trouble = database_trouble(exc)
        if _is_api(request):
            return database_trouble_json(trouble)
        return database_trouble_page(trouble)
    if _is_api(request):
        return JsonResponse(
            error_body("server_error", "Something went wrong on our side; it was logged."),
            status=500,
        )
    return defaults.server_error(request)
