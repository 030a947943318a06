"""memoryhub's own settings. Every threshold has the seeds' value as its default and can
be changed in ``settings.MEMORYHUB`` or by an environment variable ``MEMORYHUB_<NAME>``."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    # write path
    # Cosines are the default model's (multilingual-e5-small, centred: docs/decisions/0023);
    # another model's differ where MODEL_COSINES says so (cosine_setting).
    "DEDUP_THRESHOLD": 0.92,  # cosine at or above which a new statement is a duplicate
    "EXTEND_THRESHOLD": 0.70,  # cosine at or above which a new statement extends an old one
    # below EXTEND_THRESHOLD, a neighbour this close still extends when its words say so
    "EXTEND_CANDIDATE_FLOOR": 0.4,
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
    # each message that yields memories gets a vector, which search reads its memories by
    # (their ``context``): about a fifth of ingest's time on real conversations, for 0.024
    # of BEAM's recall@10 (docs/decisions/0045); off, a memory is its own context and search
    # ranks as it did before messages had vectors (retrieval.WITHOUT_CONTEXT)
    "MESSAGE_VECTORS": True,
    "BREAKER_FAILURES": 3,  # failures within the window that open a provider's circuit
    "BREAKER_WINDOW": 30.0,  # seconds
    "BREAKER_COOLDOWN": 30.0,  # seconds an open circuit waits before one trial call
    # topics (memories.services.topics; measured in docs/decisions/0058): how sure a reading
    # must be to say a short message is small talk, that one of its statements is
    # nonetheless something to remember, that a statement's topic decides the kind of
    # memory, and that two statements about the same thing of the same person are
    # versions of one another (the newer supersedes)
    # A turn of conversation of at most this many informative sentences is kept a statement
    # a sentence ("We live in Pozuelo." apart from "We still owe 210,000 on the mortgage.");
    # a longer message, and every one with 0, in pieces of MAX_EPISODE characters
    # (extraction.episodes). 0: on the advisor sets, LoCoMo and BEAM alike, pieces found
    # more and cost less (docs/decisions/0058)
    "EPISODE_SENTENCES_APART": 0,
    "SMALL_TALK_WORDS": 10,  # longer than this, what reads as small talk still tells something
    "TOPIC_SMALL_TALK_MESSAGE": 0.5,
    "TOPIC_KEEP": 0.5,
    "TOPIC_TYPED": 0.5,
    "TOPIC_SUPERSEDE": 0.6,
    # contradictions: evidence a new statement needs to supersede an old one on its own
    "SUPERSEDE_MIN_CONFIDENCE": 0.8,
    "SUPERSEDE_CONFIDENCE_MARGIN": 0.1,
    # read path
    # Among live memories about the same thing (one speaker, close, other numbers, and the
    # newer says it changes something), the newer goes just before the older
    # (retrieval/pick.py, docs/decisions/0041).
    "SEARCH_NEWER_FIRST": True,
    # Of the memories about what a question after a value as it stands is about (its topic),
    # the newest goes first when it answers the query at most this much less well than an
    # older one (retrieval/pick.py topic_versions; measured in docs/decisions/0058).
    "TOPIC_NEWER_MARGIN": 0.3,
    # The topics whose overlap with a question's counts for ranking (retrieval.statement):
    # those a person has one value of ("one"), one per thing ("per_thing"), any number of
    # ("many": family, leisure, health…). All three by default: the advisor sets gain from
    # "many", LoCoMo loses about 0.01 of recall@10 to it (docs/decisions/0058).
    "SEARCH_TOPIC_CARDINALITIES": "one,per_thing,many",
    "SEARCH_TOPIC_MIN": 0.0,
    "RANKING_WEIGHTS": {},  # overrides of retrieval.DEFAULT_WEIGHTS, e.g. {"recency": 0.2}
    "TEXT_MATCHES_RANKED": 1000,  # full-text matches a search ranks at most, per word
    # Whether a search has an answer at all (retrieval.floor; measured in docs/decisions/0058):
    # a question for a value needs a memory (or its message) this close in meaning, or one
    # about its topic (this much overlap) and not far in meaning; a question whether
    # something is so, a memory closer still, or one about its topic and close; either,
    # a memory holding this share of the question's word weight. The yes-or-no floor was
    # 0.4 / 0.5 and 0.3: it left 80 % of the real yes-or-no questions of the cross-lingual
    # set unanswered (docs/decisions/0073)
    "SEARCH_FLOOR_SEMANTIC": 0.24,
    "SEARCH_FLOOR_TOPIC": 0.4,
    "SEARCH_FLOOR_SEMANTIC_TOPIC": 0.15,
    "SEARCH_FLOOR_SEMANTIC_WHETHER": 0.32,
    # Keywords are held to a value's floor when they read as one of the topics at least
    # this surely, else to words alone's (retrieval.floor.floor_for)
    "SEARCH_FLOOR_KEYWORDS_TOPIC": 0.5,
    "SEARCH_FLOOR_TOPIC_WHETHER": 0.4,
    "SEARCH_FLOOR_SEMANTIC_TOPIC_WHETHER": 0.25,
    "SEARCH_FLOOR_COVERAGE": 0.6,
    # what a word of the turn a memory answers counts for beside one of its own
    "TEXT_CONTEXT_WEIGHT": 0.5,
    # BM25 scaled by the query's word weight ("query") or by the best candidate's ("best")
    "TEXT_SCALE": "query",
    "RECENCY_HALF_LIFE_DAYS": 14.0,
    "RANK_EVIDENCE_WEIGHT": 0.05,  # the ranking refresh adds evidence to the read weights
    # tiers (seed 000 §1.1)
    "CORE_TIER_MAX_BYTES": 2048,
    "TIER_CORE_MIN_ACCESSES": 5,  # recall → core: accessed at least this often …
    "TIER_CORE_WINDOW_DAYS": 7,  # … within this many days …
    "TIER_CORE_MIN_RECENCY": 0.7,  # … and recency weight above this
    "TIER_CORE_IDLE_DAYS": 14,  # core → recall when not accessed for this long
    "TIER_ARCHIVAL_IDLE_DAYS": 90,  # recall → archival when not accessed for this long
    # background jobs: rows (or clients) per transaction; a crash loses at most one batch
    "JOB_BATCH_SIZE": 1000,
    "JOB_RUN_KEEP_DAYS": 90,  # the run log is pruned by the TTL sweep
    # TTL sweep (seed 004 §6, §8 job A)
    "OPERATIONAL_TTL_HOURS": 24,
    # decay and forgetting (seed 003 phase 2): score = confidence / (1 + days idle × rate)
    "DECAY_RATE_PER_DAY": 0.05,
    "DECAY_SCORE_FLOOR": 0.1,
    "DECAY_ARCHIVE_AFTER_DAYS": 30,  # moved to archival once below the floor for this long
    # batch dedup and fusion (seed 004 §6 merge_threshold, §8 job B)
    "MERGE_THRESHOLD": 0.88,
    "FUSION_MIN_LEXICAL_OVERLAP": 0.6,  # Jaccard of the two statements' words
    # episodic → semantic consolidation (seed 004 §8 job C, seed 003 phase 2)
    "CONSOLIDATE_SIMILARITY": 0.80,
    "CONSOLIDATE_MIN_EPISODES": 3,
    "CONSOLIDATE_MIN_LEXICAL_OVERLAP": 0.6,  # shared words, days and times set aside
    "CONSOLIDATE_MAX_PER_CLIENT": 2000,  # most recent memories compared per client and run
    # episode summaries (seed 003 phase 4)
    "SUMMARIZER": "heuristic",  # or "llm" (same model settings as the LLM extractor)
    "SUMMARY_IDLE_MINUTES": 60,  # a session is summarised once quiet this long
    "SUMMARY_MIN_EVENTS": 3,
    # principle extraction (seed 004 §8 job D: weekly, multiple evidence)
    "REVIEW_PRINCIPLE_AFTER_DAYS": 7,
    "PRINCIPLE_SIMILARITY": 0.75,
    "PRINCIPLE_MIN_MEMORIES": 3,
    "PRINCIPLE_MIN_EVIDENCE": 3,  # distinct events behind the related memories
    # promotion (seed 004 §5.3, §6)
    "PROMOTION_WEIGHTS": {
        "repetition": 0.30,
        "usage": 0.20,
        "confidence": 0.20,
        "evidence": 0.15,
        "stability": 0.10,
        "impact": 0.05,
    },
    "CANDIDATE_THRESHOLD": 0.65,
    "PROMOTE_THRESHOLD": 0.80,  # at or above: the review item is marked recommended
    "PROMOTION_REPETITION_FULL": 4,  # restatements that count as full repetition
    "PROMOTION_USAGE_FULL": 10,  # reads that count as full usage
    "PROMOTION_SOURCES_FULL": 3,  # distinct sessions of evidence that count as full
    "PROMOTION_STABILITY_DAYS": 30,  # known this long without being superseded: stable
    "PROMOTION_REJECT_COOLDOWN_DAYS": 30,  # a rejected memory waits, unless evidence grows
    # profiles
    "PROFILE_MAX_AGE_HOURS": 24,  # the dynamic profile slides with time: rebuild this often
    # logins (memories/services/tenancy/logins.py): failed attempts without a success
    # that lock an account, or an address, for the lockout's minutes
    "LOGIN_MAX_FAILURES": 5,
    "LOGIN_MAX_FAILURES_PER_ADDRESS": 20,
    "LOGIN_LOCKOUT_MINUTES": 15,
    "TRUSTED_PROXIES": 0,  # proxies in front that append to X-Forwarded-For
    # webhooks (memories/services/webhooks/)
    "WEBHOOK_TIMEOUT": 5.0,  # seconds a receiver has to answer an attempt
    "WEBHOOK_MAX_ATTEMPTS": 6,  # then the delivery is given up (failed)
    "WEBHOOK_RETRY_SECONDS": 30,  # the first retry's wait; each next one waits 4× longer
    "WEBHOOK_MAX_ENDPOINTS": 20,  # per tenant
    # one sweep of due deliveries stops after this many seconds (the next goes on), and
    # attempts at most this many of one tenant's, so that no tenant's slow receivers hold
    # up the others'
    "WEBHOOK_SWEEP_SECONDS": 60,
    "WEBHOOK_SWEEP_PER_TENANT": 100,
}


# Cosines mean different things in different models' spaces: a paraphrase that
# multilingual-e5-small (centred) puts at 0.5, all-MiniLM-L6-v2 puts at 0.6. DEFAULTS hold
# the default model's thresholds; these are another model's, where they differ. The
# design's values (written for the remote models, and measured again on all-MiniLM-L6-v2)
# hold for every model not measured here. A value configured in settings or the environment
# holds for every model. Measurements in docs/decisions/0023 and docs/decisions/0037.
_DESIGN_COSINES = {
    "EXTEND_THRESHOLD": 0.80,
    "EXTEND_CANDIDATE_FLOOR": 0.5,
    # The floor as it stood for every model before it was measured on the default one.
    "SEARCH_FLOOR_SEMANTIC": 0.35,
    "SEARCH_FLOOR_SEMANTIC_TOPIC": 0.25,
    "SEARCH_FLOOR_SEMANTIC_WHETHER": 0.5,
    "SEARCH_FLOOR_SEMANTIC_TOPIC_WHETHER": 0.4,
}
MODEL_COSINES: dict[str, dict[str, float]] = {
    "multilingual-e5-small": {},
    "all-MiniLM-L6-v2": _DESIGN_COSINES,
    "voyage-3-large": _DESIGN_COSINES,
    "text-embedding-3-large": _DESIGN_COSINES,
    "text-embedding-3-small": _DESIGN_COSINES,
}


def cosine_setting(name: str, model: str | None) -> float:
    """The threshold ``name`` for cosines between vectors of ``model`` (None: the default
    model's): as configured, else the model's own, else the default."""
    configured = name in getattr(settings, "MEMORYHUB", {}) or f"MEMORYHUB_{name}" in os.environ
    if model is None or configured:
        return float(setting(name))
    calibration = MODEL_COSINES.get(model, _DESIGN_COSINES)
    return float(calibration.get(name, DEFAULTS[name]))


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
