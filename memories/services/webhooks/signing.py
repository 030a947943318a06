"""The signature of a delivery: ``Memoryhub-Signature: v1=<hex>``, the HMAC-SHA256 under
the endpoint's secret of ``<timestamp>.<body>``, where the timestamp (Unix seconds) is sent
as ``Memoryhub-Timestamp``. A receiver recomputes it over the raw body and refuses a
timestamp too far from its clock, so a captured delivery cannot be replayed later
(``memoryhub_client.webhooks.verify`` does both)."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "Memoryhub-Signature"
TIMESTAMP_HEADER = "Memoryhub-Timestamp"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"v1={digest.hexdigest()}"


def signed_headers(secret: str, body: bytes, *, now: float | None = None) -> dict[str, str]:
    timestamp = int(time.time() if now is None else now)
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, body),
    }
