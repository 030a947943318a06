"""For a receiver of memoryhub's webhooks: check that a delivery is genuine and fresh.

Each delivery is a POST whose body is JSON (``{"id", "type", "created_at", "sequence",
"tenant", "content_included", "data"}``), with ``Memoryhub-Timestamp`` (Unix seconds) and
``Memoryhub-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the endpoint's
secret>``. Answer 2xx quickly; anything else (or no answer within the server's timeout) is
retried later, with the same ``id`` (``Memoryhub-Delivery``): use it to ignore repeats.
Deliveries can arrive out of order: ``sequence`` numbers each client's events in the order
they were committed (with gaps for events the endpoint does not take); order by it.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

TOLERANCE_SECONDS = 300


def verify(
    secret: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether ``body`` (the raw bytes received) was signed with ``secret`` no more than
    ``tolerance`` seconds from now (older ones may be replays)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        sent = int(lowered.get("memoryhub-timestamp", ""))
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    digest = hmac.new(secret.encode(), f"{sent}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"v1={digest}", lowered.get("memoryhub-signature", ""))
