"""Contradictions beyond the attribute list, measured: a labelled set of statement pairs
(``data/contradictions.json``: a changed preference on the same topic, a negated fact, a
reversed decision, in en/it/es, and near misses that must not conflict), each said by a
client of its own a month apart, through ingest.

A pair is *caught* when the second statement's outcome relates to the first memory as
``updated`` or ``conflict``. Precision: caught pairs that contradict over all caught;
recall: caught over all that contradict. Run in a transaction that is rolled back.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from memories.models import Evidence, Role
from memories.services.tenancy.members import member_ensure, tenant_get_or_create
from memories.services.write.ingest import EventInput, event_ingest

DATASET = Path(__file__).resolve().parent / "data" / "contradictions.json"
CAUGHT = {Evidence.Action.UPDATED, Evidence.Action.CONFLICT}
LANGUAGES = {"en": "english", "it": "italian", "es": "spanish"}


class _Rollback(Exception):
    pass


def load(path: Path = DATASET) -> list[dict]:
    return json.loads(path.read_text())["pairs"]


def evaluate(pairs: list[dict]) -> dict:
    """Each pair with ``caught`` added, and precision and recall overall and by type."""
    results: list[dict] = []
    try:
        with transaction.atomic():
            results = [_judge(pair, number) for number, pair in enumerate(pairs)]
            raise _Rollback
    except _Rollback:
        pass
    return {
        "pairs": results,
        "overall": _scores(results),
        "by_set": _by(results, "set"),
        "by_type": _by(results, "type"),
        "by_language": _by(results, "lang"),
    }


def _judge(pair: dict, number: int) -> dict:
    now = timezone.now()
    tenant = tenant_get_or_create(
        slug=f"contradictions-{uuid.uuid4().hex[:10]}", language=LANGUAGES[pair["lang"]]
    )
    user = member_ensure(tenant=tenant, username=f"{tenant.slug}-eval", role=Role.SUPERVISOR)
    ref = f"pair-{number}"
    first = event_ingest(
        user=user,
        tenant=tenant,
        item=EventInput(
            client=ref, speaker="client", content=pair["old"], observed_at=now - timedelta(days=30)
        ),
    )
    old = {o.memory.pk for o in first.outcomes}
    said = EventInput(client=ref, speaker="client", content=pair["new"], observed_at=now)
    second = event_ingest(user=user, tenant=tenant, item=said)
    caught = any(
        o.action in CAUGHT and o.related is not None and o.related.pk in old
        for o in second.outcomes
    )
    return {**pair, "caught": caught}


def _scores(results: list[dict]) -> dict:
    caught = [r for r in results if r["caught"]]
    true = [r for r in results if r["contradicts"]]
    hit = [r for r in caught if r["contradicts"]]
    return {
        "pairs": len(results),
        "contradictions": len(true),
        "caught": len(caught),
        "precision": round(len(hit) / len(caught), 3) if caught else None,
        "recall": round(len(hit) / len(true), 3) if true else None,
    }


def _by(results: list[dict], key: str) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for result in results:
        groups[result[key]].append(result)
    return {name: _scores(group) for name, group in sorted(groups.items())}
