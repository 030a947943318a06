"""The one way memoryhub asks an LLM: the ``openai`` client (any OpenAI-compatible
server: LLM_BASE_URL), temperature 0, answered against a strict JSON schema. Callers
(extraction, episode summaries) turn any failure into their own error and fall back to
their heuristic."""

from __future__ import annotations

import json

from django.conf import settings

from memories.conf import setting


def llm_client():
    import openai

    return openai.OpenAI(
        api_key=setting("LLM_API_KEY") or settings.OPENAI_API_KEY or "not-needed",
        base_url=setting("LLM_BASE_URL") or settings.OPENAI_BASE_URL or None,
        timeout=float(setting("LLM_TIMEOUT")),
        max_retries=0,
    )


def llm_json(*, system: str, user: str, schema: dict) -> dict:
    """The model's answer to ``user`` under ``system``, parsed; raises on any failure
    (network, refusal, invalid JSON)."""
    response = llm_client().chat.completions.create(
        model=setting("LLM_MODEL"),
        temperature=0,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        response_format={"type": "json_schema", "json_schema": schema},
    )
    return json.loads(response.choices[0].message.content or "")
