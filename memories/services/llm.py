"""The one way memoryhub asks an LLM: the ``openai`` client (any OpenAI-compatible
server: LLM_BASE_URL), temperature 0, answered against a strict JSON schema. Callers
(extraction, episode summaries) turn any failure into their own error and fall back to
their heuristic.

The model sits behind a circuit breaker (``memories.services.breaker``, the embedding
providers' settings): while it is open, or while its one trial call is in flight, a call
fails at once with ``LLMUnavailable`` instead of waiting ``LLM_TIMEOUT`` for a server that
hangs."""

from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit

from django.conf import settings

from memories.conf import setting
from memories.services.breaker import CircuitBreaker
from memoryhub.observability import metrics


class LLMUnavailable(Exception):
    """The model's circuit does not let this call through: fall back without waiting."""


_breaker: CircuitBreaker | None = None
_breaker_lock = threading.Lock()


def llm_breaker() -> CircuitBreaker:
    """The process-wide breaker of the model (it must outlive a call to mean anything)."""
    global _breaker
    with _breaker_lock:
        if _breaker is None:
            _breaker = CircuitBreaker(
                failures=int(setting("BREAKER_FAILURES")),
                window=float(setting("BREAKER_WINDOW")),
                cooldown=float(setting("BREAKER_COOLDOWN")),
            )
        return _breaker


def reset_llm_breaker() -> None:
    """Forget the breaker, so the next call reads the settings again."""
    global _breaker
    with _breaker_lock:
        _breaker = None


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
    (network, refusal, invalid JSON, the circuit open)."""
    import openai

    breaker = llm_breaker()
    permit = breaker.acquire()
    if permit is None:
        raise LLMUnavailable(f"the model's circuit is {breaker.state}; not waited for")
    try:
        response = llm_client().chat.completions.create(
            model=setting("LLM_MODEL"),
            temperature=0,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            response_format={"type": "json_schema", "json_schema": schema},
        )
    except openai.APITimeoutError:
        breaker.release(permit, ok=False, timed_out=True)
        metrics.provider_called("llm", llm_provider(), ok=False, circuit=breaker.state)
        raise
    except BaseException:
        breaker.release(permit, ok=False)
        metrics.provider_called("llm", llm_provider(), ok=False, circuit=breaker.state)
        raise
    breaker.release(permit, ok=True)  # it answered; what it said is the caller's to judge
    metrics.provider_called("llm", llm_provider(), ok=True, circuit=breaker.state)
    return json.loads(response.choices[0].message.content or "")
