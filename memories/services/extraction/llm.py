"""Optional LLM extractor through the ``openai`` client (any OpenAI-compatible server:
set LLM_BASE_URL). One call per batch of events, answered against a strict JSON schema;
any failure (network, refusal, invalid JSON, schema mismatch) raises LLMExtractionError
and the caller falls back to the heuristic extractor."""

from __future__ import annotations

from datetime import datetime, timedelta

from memories.models import Category, Kind
from memories.services.extraction.heuristic import Candidate
from memories.services.extraction.normalise import detect_language
from memories.services.llm import llm_json
from memories.text import clean, fold

SYSTEM_PROMPT = (
    "You extract durable, atomic memories about a client from conversation events. "
    "Return only statements the client (or their advisor) actually made; never invent "
    "facts, never paraphrase into another language, skip small talk and questions. Each "
    "memory is one standalone sentence. Use 'attribute' for a stable key of what the "
    "statement is about (e.g. contact_channel, meeting_time, residence, employer, "
    "risk_profile, preference:<topic>) and 'value' for its value, so that a later "
    "contradiction shares the attribute. expires_in_days is null for lasting facts."
)

SCHEMA = {
    "name": "memories",
    "strict": True,
    "schema": {
        "type": "object",
        "additionalProperties": False,
        "required": ["memories"],
        "properties": {
            "memories": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": [
                        "event",
                        "content",
                        "kind",
                        "category",
                        "confidence",
                        "importance",
                        "expires_in_days",
                        "attribute",
                        "value",
                        "negated",
                    ],
                    "properties": {
                        "event": {"type": "integer"},
                        "content": {"type": "string"},
                        "kind": {"type": "string", "enum": list(Kind.values)},
                        "category": {"type": "string", "enum": list(Category.values)},
                        "confidence": {"type": "number"},
                        "importance": {"type": "number"},
                        "expires_in_days": {"type": ["number", "null"]},
                        "attribute": {"type": "string"},
                        "value": {"type": "string"},
                        "negated": {"type": "boolean"},
                    },
                },
            }
        },
    },
}


class LLMExtractionError(Exception):
    pass


def extract_batch(events: list[tuple[str, str, str, datetime]]) -> list[list[Candidate]]:
    """``events`` are (text, speaker, source, observed_at); one list of candidates each."""
    if not events:
        return []
    numbered = "\n".join(
        f"[{i}] ({source}, {speaker or 'user'}) {text}"
        for i, (text, speaker, source, _) in enumerate(events)
    )
    try:
        items = llm_json(system=SYSTEM_PROMPT, user=numbered, schema=SCHEMA)["memories"]
    except Exception as exc:
        raise LLMExtractionError(f"LLM extraction failed: {exc}") from exc

    results: list[list[Candidate]] = [[] for _ in events]
    for item in items:
        try:
            index = int(item["event"])
            text, _, _, observed_at = events[index]
            content = clean(str(item["content"]))
            kind, category = item["kind"], item["category"]
            if not content or kind not in Kind.values or category not in Category.values:
                raise ValueError("empty content or unknown kind/category")
            results[index].append(
                Candidate(
                    content=content,
                    kind=kind,
                    category=category,
                    confidence=min(max(float(item["confidence"]), 0.0), 1.0),
                    importance=min(max(float(item["importance"]), 0.0), 1.0),
                    expires_at=_expiry(observed_at, item["expires_in_days"]),
                    language=detect_language(text),
                    attribute=fold(str(item["attribute"]))[:100],
                    value=fold(str(item["value"]))[:200],
                    negated=bool(item["negated"]),
                )
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise LLMExtractionError(f"LLM answer does not fit the schema: {exc}") from exc
    return results


def _expiry(observed_at: datetime, days) -> datetime | None:
    """When a memory the model says expires in ``days`` expires (none for null or 0). The
    answer does not fit when it expires before it was said (and before 1900 it would be
    stored and exported, then refused by the import) or past year 9999 (never stored)."""
    if not days:
        return None
    days = float(days)
    if not days > 0:  # NaN too
        raise ValueError(f"expires_in_days must be positive, not {days}")
    try:
        return observed_at + timedelta(days=days)
    except OverflowError:
        raise ValueError(f"expires_in_days goes past year 9999: {days}") from None
