"""What the API refused, as exceptions: each carries the API's ``code``, ``message`` and
``fields`` (``{"events[3].content": ["This field may not be blank."]}``) and the HTTP
status. One class per status a caller handles differently."""

from __future__ import annotations

from typing import Any

import httpx


class MemoryHubError(Exception):
    """An answer of the API that is not a success, or no answer at all."""

    status: int | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str = "error",
        fields: dict[str, list[str]] | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.fields = fields or {}
        if status is not None:
            self.status = status
        self.retry_after = retry_after
        # Set by add_events when a later request of a batch fails: what the earlier
        # requests stored, and where in the caller's list the failed request began.
        self.stored: list[Any] = []
        self.offset = 0

    def __str__(self) -> str:
        return f"{self.status or '-'} {self.code}: {self.message}"


class InvalidRequest(MemoryHubError):
    status = 400


class AuthenticationError(MemoryHubError):
    status = 401


class PermissionDenied(MemoryHubError):
    status = 403


class NotFound(MemoryHubError):
    status = 404


class Conflict(MemoryHubError):
    status = 409


class PayloadTooLarge(MemoryHubError):
    status = 413


class RateLimited(MemoryHubError):
    status = 429


class ServerError(MemoryHubError):
    """5xx: the server failed (or a proxy in front of it)."""


class TransportError(MemoryHubError):
    """No answer: the connection failed or timed out."""


_BY_STATUS: dict[int, type[MemoryHubError]] = {
    cls.status: cls
    for cls in (
        InvalidRequest,
        AuthenticationError,
        PermissionDenied,
        NotFound,
        Conflict,
        PayloadTooLarge,
        RateLimited,
    )
    if cls.status is not None
}


def retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (a number of seconds or an HTTP date), if sent."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    from datetime import UTC, datetime

    return max((moment - datetime.now(UTC)).total_seconds(), 0.0)


def error_from(response: httpx.Response) -> MemoryHubError:
    """The exception for an error answer, from its ``{"error": {...}}`` body (or, from a
    proxy that answers something else, from its status)."""
    status = response.status_code
    error: dict[str, Any] = {}
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
    message = str(error.get("message") or response.text[:500] or response.reason_phrase)
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else MemoryHubError)
    return cls(
        message,
        code=str(error.get("code") or f"http_{status}"),
        fields=error.get("fields") or {},
        status=status,
        retry_after=retry_after(response),
    )
