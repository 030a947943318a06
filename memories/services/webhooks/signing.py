"""The signature of a delivery: ``Memoryhub-Signature: v1=<hex>``, the HMAC-SHA256 under
the endpoint's secret of ``<timestamp>.<body>``, where the timestamp (Unix seconds) is sent
as ``Memoryhub-Timestamp``. A receiver recomputes it over the raw body and refuses a
timestamp too far from its clock, so a captured delivery cannot be replayed later."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "Memoryhub-Signature"
TIMESTAMP_HEADER = "Memoryhub-Timestamp"
TOLERANCE_SECONDS = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"v1={digest.hexdigest()}"


def signed_headers(secret: str, body: bytes, *, now: float | None = None) -> dict[str, str]:
    timestamp = int(time.time() if now is None else now)
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, body),
    }


def verify(
    secret: str,
    *,
    body: bytes,
    timestamp: str,
    signature_header: str,
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> bool:
    """Whether a delivery is genuine and fresh (what a receiver does)."""
    try:
        sent = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, sent, body), signature_header)
