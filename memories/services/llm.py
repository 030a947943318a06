"""The one way memoryhub asks an LLM: the ``openai`` client (any OpenAI-compatible
server: LLM_BASE_URL), temperature 0, answered against a strict JSON schema. Callers
(extraction, episode summaries) turn any failure into their own error and fall back to
their heuristic."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.conf import settings

from memories.conf import setting
from memoryhub.observability import metrics


def llm_client():
    import openai

    return openai.OpenAI(
        api_key=setting("LLM_API_KEY") or settings.OPENAI_API_KEY or "not-needed",
        base_url=setting("LLM_BASE_URL") or settings.OPENAI_BASE_URL or None,
        timeout=float(setting("LLM_TIMEOUT")),
        max_retries=0,
    )


def llm_provider() -> str:
    """The provider as the metrics name it: the host of a configured server, or openai."""
    base_url = setting("LLM_BASE_URL") or settings.OPENAI_BASE_URL
    return (urlsplit(base_url).hostname or "custom") if base_url else "openai"


def llm_json(*, system: str, user: str, schema: dict) -> dict:
    """The model's answer to ``user`` under ``system``, parsed; raises on any failure
    (network, refusal, invalid JSON)."""
    try:
        response = llm_client().chat.completions.create(
            model=setting("LLM_MODEL"),
            temperature=0,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            response_format={"type": "json_schema", "json_schema": schema},
        )
        answer = json.loads(response.choices[0].message.content or "")
    except Exception:
        metrics.provider_called("llm", llm_provider(), ok=False, circuit="closed")
        raise
    metrics.provider_called("llm", llm_provider(), ok=True, circuit="closed")
    return answer
