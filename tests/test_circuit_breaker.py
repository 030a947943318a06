"""The circuit breakers under concurrent calls, against a local server that hangs.

While a provider is half open, or has not answered yet, or failed last, one call reaches
it and the others fail over at once: they finish while that one is still hanging. No
timing is asserted: a hung request ends only when the test releases it."""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from datetime import UTC, datetime

import pytest

from memories.services.embedding.providers import AllProvidersFailed, get_chain, reset_chain
from memories.services.extraction.llm import LLMExtractionError, extract_batch

CALLS = 16
VOYAGE = "voyage-3-large"
GUARD = 60  # seconds before a test gives up waiting (it fails): never reached when it holds


@pytest.fixture
def patient_providers(settings, remote_providers):
    """Voyage → OpenAI small → local on the fake, with a timeout longer than any test: a
    hung request ends when the test releases it, not by itself."""
    settings.MEMORYHUB = {"EMBED_TIMEOUT": 120.0, "BREAKER_COOLDOWN": 0.3}
    reset_chain()
    return remote_providers


def _submit(pool: ThreadPoolExecutor, calls: int) -> list[Future]:
    chain = get_chain()
    return [pool.submit(chain.embed, [f"statement {i}"]) for i in range(calls)]


def _all_but_one(futures: list[Future]) -> list[Future]:
    """The calls that finished while one is still out (fails if they waited for it)."""
    finished = []
    for future in as_completed(futures, timeout=GUARD):
        finished.append(future)
        if len(finished) == len(futures) - 1:
            return finished
    raise AssertionError("every call finished: none was held by the hanging server")


def _arrived(fake, model: str, count: int) -> int:
    deadline = time.monotonic() + GUARD
    while fake.received(model) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return fake.received(model)


def _provider(future: Future) -> str:
    try:
        return future.result().provider
    except AllProvidersFailed:
        return "none"


def test_half_open_lets_one_trial_reach_the_provider_and_fails_the_others_over(
    patient_providers,
):
    chain = get_chain()
    patient_providers.scripts[VOYAGE] = deque(["500", "500", "500"])
    for _ in range(3):
        assert chain.embed(["x"]).provider == "openai-small"
    assert chain.breakers["voyage"].state == "open"
    time.sleep(0.35)  # past BREAKER_COOLDOWN (0.3 s)
    assert chain.breakers["voyage"].state == "half_open"

    patient_providers.requests.clear()
    patient_providers.scripts[VOYAGE] = deque(["hang"])
    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        futures = _submit(pool, CALLS)
        others = _all_but_one(futures)
        assert _arrived(patient_providers, VOYAGE, 1) == 1
        assert [_provider(f) for f in others] == ["openai-small"] * (CALLS - 1)
        assert patient_providers.received(VOYAGE) == 1  # only the trial
        patient_providers.release.set()
        (trial,) = set(futures) - set(others)
        assert trial.result(timeout=GUARD).provider == "voyage"
    assert chain.breakers["voyage"].state == "closed"


def test_a_provider_that_failed_once_gets_one_call_at_a_time_until_it_answers(
    patient_providers,
):
    """Before three failures open the circuit: one failure, then the provider hangs."""
    chain = get_chain()
    patient_providers.scripts[VOYAGE] = deque(["500"])
    assert chain.embed(["x"]).provider == "openai-small"
    assert chain.breakers["voyage"].state == "closed"

    patient_providers.requests.clear()
    patient_providers.scripts[VOYAGE] = deque(["hang"])
    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        futures = _submit(pool, CALLS)
        others = _all_but_one(futures)
        assert _arrived(patient_providers, VOYAGE, 1) == 1
        assert [_provider(f) for f in others] == ["openai-small"] * (CALLS - 1)
        assert patient_providers.received(VOYAGE) == 1
        patient_providers.release.set()
        (probe,) = set(futures) - set(others)
        assert probe.result(timeout=GUARD).provider == "voyage"

    # Once it has answered, concurrent calls all go to it again.
    patient_providers.requests.clear()
    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        providers = [f.result(timeout=GUARD).provider for f in _submit(pool, CALLS)]
    assert providers == ["voyage"] * CALLS
    assert patient_providers.received(VOYAGE) == CALLS


def test_a_burst_to_a_provider_not_heard_from_yet_sends_it_one_call(patient_providers):
    """A fresh process whose first provider hangs: one call waits, not sixteen."""
    patient_providers.scripts[VOYAGE] = deque(["hang"])
    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        futures = _submit(pool, CALLS)
        others = _all_but_one(futures)
        assert _arrived(patient_providers, VOYAGE, 1) == 1
        # the next providers are new too: the overflow goes on down the chain
        assert {_provider(f) for f in others} <= {"openai-small", "local"}
        assert patient_providers.received(VOYAGE) == 1
        patient_providers.release.set()


def test_one_timeout_opens_the_circuit(remote_providers):
    chain = get_chain()
    remote_providers.scripts[VOYAGE] = deque(["timeout"])  # answers after 1 s; timeout 0.5 s
    assert chain.embed(["x"]).provider == "openai-small"
    assert chain.breakers["voyage"].state == "open"
    remote_providers.requests.clear()
    assert chain.embed(["y"]).provider == "openai-small"
    assert remote_providers.received(VOYAGE) == 0


def test_the_model_gets_one_call_while_unproven_and_the_others_fall_back(settings, fake_provider):
    settings.MEMORYHUB = {
        "LLM_BASE_URL": fake_provider.base_url,
        "LLM_API_KEY": "test-key",
        "LLM_TIMEOUT": 120.0,
    }
    fake_provider.script.extend(["hang"])
    event = [("I prefer email.", "client", "chat", datetime(2026, 1, 5, tzinfo=UTC))]
    calls = 8
    with ThreadPoolExecutor(max_workers=calls) as pool:
        futures = [pool.submit(extract_batch, event) for _ in range(calls)]
        others = _all_but_one(futures)
        assert _arrived(fake_provider, "gpt-4o-mini", 1) == 1
        for future in others:
            with pytest.raises(LLMExtractionError, match="not waited for"):
                future.result()
        assert fake_provider.paths() == ["/v1/chat/completions"]
        fake_provider.release.set()
        (first,) = set(futures) - set(others)
        assert first.result(timeout=GUARD) == [[]]
