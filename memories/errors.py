"""Domain errors: what a service raises for a request it cannot carry out as asked.

Services raise these and know nothing of HTTP frameworks; the API's exception handler
(``memories.api.errors``) turns them into ``{"error": {"code", "message", "fields"}}``
answers with their status, and pages show their message.
"""

from __future__ import annotations

from http import HTTPStatus


class DomainError(Exception):
    """Raised by services for a request that cannot be carried out as asked."""

    status_code: int = HTTPStatus.BAD_REQUEST
    code = "invalid"

    def __init__(self, message: str, *, fields: dict | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.fields = fields or {}
        if code:
            self.code = code


class NotFound(DomainError):
    """A request names, in its body, something that does not exist where it is asked
    (an advisor who is not one of the tenant's): as an unknown reference does, a 404."""

    status_code = HTTPStatus.NOT_FOUND
    code = "not_found"


class Conflict(DomainError):
    status_code = HTTPStatus.CONFLICT
    code = "conflict"


class IdempotencyConflict(Conflict):
    """An ``external_id`` already names an event with other content."""

    code = "idempotency_conflict"
