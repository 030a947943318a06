"""memoryhub's own settings. Every threshold has the seeds' value as its default and can
be changed in ``settings.MEMORYHUB`` or by an environment variable ``MEMORYHUB_<NAME>``."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    # write path
    "DEDUP_THRESHOLD": 0.92,  # cosine at or above which a new statement is a duplicate
    "EXTEND_THRESHOLD": 0.80,  # cosine at or above which a new statement extends an old one
    # below EXTEND_THRESHOLD, a neighbour this close still extends when its words say so
    "EXTEND_CANDIDATE_FLOOR": 0.5,
    "MAX_EVENT_CHARS": 65_536,
    "MAX_BATCH_EVENTS": 500,
    "EXTRACTOR": "heuristic",  # or "llm"
    "LLM_MODEL": "gpt-4o-mini",
    "LLM_BASE_URL": "",
    "LLM_API_KEY": "",
    "LLM_TIMEOUT": 20.0,
    "EXTRACT_FROM_ASSISTANT": False,
    # embeddings
    "EMBED_TIMEOUT": 10.0,
    "BREAKER_FAILURES": 3,  # failures within the window that open a provider's circuit
    "BREAKER_WINDOW": 30.0,  # seconds
    "BREAKER_COOLDOWN": 30.0,  # seconds an open circuit waits before one trial call
    # contradictions: evidence a new statement needs to supersede an old one on its own
    "SUPERSEDE_MIN_CONFIDENCE": 0.8,
    "SUPERSEDE_CONFIDENCE_MARGIN": 0.1,
    # read path
    "RANKING_WEIGHTS": {},  # overrides of retrieval.DEFAULT_WEIGHTS, e.g. {"recency": 0.2}
    "RECENCY_HALF_LIFE_DAYS": 14.0,
    # tiers
    "CORE_TIER_MAX_BYTES": 2048,
}


def setting(name: str) -> Any:
    default = DEFAULTS[name]
    configured = getattr(settings, "MEMORYHUB", {})
    if name in configured:
        return configured[name]
    raw = os.environ.get(f"MEMORYHUB_{name}")
    if raw is None:
        return default
    if isinstance(default, dict):
        import json

        return json.loads(raw)
    if isinstance(default, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    return raw
