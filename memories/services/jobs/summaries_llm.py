"""Optional LLM episode summaries through the ``openai`` client (any OpenAI-compatible
server, the extractor's model settings): one call per session, answered against a strict
JSON schema. Any failure raises LLMSummaryError and the caller uses the heuristic."""

from __future__ import annotations

from memories.services.llm import llm_json
from memories.text import clean

SYSTEM_PROMPT = (
    "You summarise one conversation between a client and their advisor (or an agent) for "
    "the advisor's memory. Answer with the topic (a few words), the client's intent (one "
    "sentence), the outcome (one sentence: what was decided or left open) and the key "
    "facts the client stated (short standalone sentences, at most five). Use only what the "
    "transcript says, in its language; never invent."
)
SCHEMA = {
    "name": "episode_summary",
    "strict": True,
    "schema": {
        "type": "object",
        "additionalProperties": False,
        "required": ["topic", "intent", "outcome", "key_facts"],
        "properties": {
            "topic": {"type": "string"},
            "intent": {"type": "string"},
            "outcome": {"type": "string"},
            "key_facts": {"type": "array", "items": {"type": "string"}},
        },
    },
}
MAX_TRANSCRIPT_CHARS = 12_000


class LLMSummaryError(Exception):
    pass


def summarize(lines: list[tuple[str, str]]) -> dict:
    """``lines`` are (speaker, text) in order; returns topic, intent, outcome, key_facts."""
    transcript = "\n".join(f"{speaker or 'user'}: {text}" for speaker, text in lines)
    try:
        payload = llm_json(
            system=SYSTEM_PROMPT, user=transcript[-MAX_TRANSCRIPT_CHARS:], schema=SCHEMA
        )
        summary = {
            "topic": clean(str(payload["topic"]))[:200],
            "intent": clean(str(payload["intent"]))[:300],
            "outcome": clean(str(payload["outcome"]))[:300],
            "key_facts": [clean(str(fact))[:300] for fact in payload["key_facts"]][:5],
        }
    except Exception as exc:
        raise LLMSummaryError(f"LLM summary failed: {exc}") from exc
    if not summary["topic"]:
        raise LLMSummaryError("LLM summary has no topic")
    return summary
