"""The health report: database, pgvector, embedding providers and the queue."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memories.services.embedding.providers import CATALOGUE, get_chain
from memoryhub import replica

logger = logging.getLogger(__name__)


def database_status() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server_version = cursor.fetchone()[0]
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    return {
        "database": {
            "ok": True,
            "engine": "postgresql",
            "version": server_version.split(" ")[0],
            "embedded": settings.EMBEDDED_DATABASE,
        },
        "pgvector": {"installed": row is not None, "version": row[0] if row else None},
    }


def embedding_providers_status() -> list[dict]:
    circuits = {p["name"]: p["circuit"] for p in get_chain().status()}
    chain = []
    for position, name in enumerate(settings.MEMORYHUB_EMBEDDING_PROVIDERS):
        spec = CATALOGUE.get(name)
        if spec is None:
            chain.append(
                {
                    "name": name,
                    "position": position,
                    "configured": False,
                    "detail": "unknown provider",
                }
            )
            continue
        key_setting = spec.key_setting
        configured = key_setting is None or bool(getattr(settings, key_setting, ""))
        chain.append(
            {
                "name": name,
                "position": position,
                "model": spec.model,
                "dimension": spec.dimension,
                "configured": configured,
                "circuit": circuits.get(name),
                "detail": "" if configured else f"{key_setting} is not set",
            }
        )
    return chain


def queue_status() -> dict:
    from django_q.conf import Conf
    from django_q.models import Failure, OrmQ, Success
    from django_q.status import Stat

    since = timezone.now() - timedelta(hours=1)
    broker = "redis" if Conf.REDIS and "redis" in settings.Q_CLUSTER else "orm"
    status = {
        "broker": broker,
        "sync": bool(Conf.SYNC),
        "failed_last_hour": Failure.objects.filter(stopped__gte=since).count(),
        "succeeded_last_hour": Success.objects.filter(stopped__gte=since).count(),
    }
    if broker == "orm":
        status["queued"] = OrmQ.objects.count()
    try:
        clusters = Stat.get_all()
    except Exception as exc:  # a broker that cannot be reached is a status, not a crash
        status["clusters"] = []
        status["detail"] = f"cannot read cluster stats: {exc}"
    else:
        status["clusters"] = [
            {"id": str(c.cluster_id), "status": c.status, "workers": len(c.workers)}
            for c in clusters
        ]
    return status


def health_report() -> dict:
    report: dict[str, Any] = {"status": "ok"}
    try:
        report.update(database_status())
    except Exception as exc:
        logger.warning("health: the database cannot be reached: %s", exc)
        report["status"] = "error"
        report["database"] = {"ok": False, "detail": str(exc)}
        report["pgvector"] = {"installed": False, "version": None}
        return report
    if not report["pgvector"]["installed"]:
        report["status"] = "error"
    report["embedding_providers"] = embedding_providers_status()
    if not any(p["circuit"] in ("closed", "half_open") for p in report["embedding_providers"]):
        report["status"] = "degraded"
    report["queue"] = queue_status()
    if replica.configured():
        standing = replica.replica_health.probe()
        report["replica"] = {
            "status": standing.status,
            "lag_seconds": standing.lag_seconds,
            "replayed_lsn": standing.replayed,
        }
    return report
