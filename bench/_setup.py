"""Shared set-up for benchmarks: a database of their own, never the development one.

With DATABASE_URL unset, benchmarks run on an embedded PostgreSQL in ``.data/bench``
(override with MEMORYHUB_DATA_DIR): its rows are immutable by design and should not
pile up in the database you browse.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    if not os.environ.get("DATABASE_URL"):
        os.environ.setdefault("MEMORYHUB_DATA_DIR", str(ROOT / ".data" / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    # As in production: follow-up work (profile refresh, review items) is queued for a
    # worker, not run inside the request being timed. No worker runs during a benchmark;
    # drain_queue() empties what was queued.
    os.environ.setdefault("MEMORYHUB_QUEUE_SYNC", "false")
    os.environ.setdefault("MEMORYHUB_LOG_LEVEL", "ERROR")
    os.environ.setdefault("MEMORYHUB_ALLOWED_HOSTS", "testserver,localhost")
    # A benchmark's key asks far more than an agent's budget; the rate limit's own cost
    # (one UPSERT) is still paid on every request.
    os.environ.setdefault("MEMORYHUB_THROTTLE_READ", "1000000/minute")
    os.environ.setdefault("MEMORYHUB_THROTTLE_WRITE", "1000000/minute")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    # As the production server's processes do once the app is loaded (memoryhub.asgi).
    from memoryhub.serving import heap_settled

    heap_settled()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values_ms: list[float]) -> str:
    return (
        f"p50 {percentile(values_ms, 50):7.2f} ms  p95 {percentile(values_ms, 95):7.2f} ms  "
        f"mean {statistics.fmean(values_ms):7.2f} ms"
    )


def drain_queue() -> int:
    """Drop the tasks a benchmark queued (nothing runs them; they only describe the work)."""
    from django_q.models import OrmQ

    return OrmQ.objects.all().delete()[0]
