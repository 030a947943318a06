"""The provider chain against a local server speaking the Voyage and OpenAI protocols."""

import time
from collections import deque

import pytest

from memories.services.breaker import CircuitBreaker
from memories.services.embedding.providers import AllProvidersFailed, get_chain
from tests.support.fakes import fake_vector


def _paths(fake):
    return [r["body"]["model"] for r in fake.requests]


def test_voyage_answers_first(remote_providers):
    result = get_chain().embed(["I prefer email.", "I live in Bristol."])
    assert (result.provider, result.model, result.dimension) == ("voyage", "voyage-3-large", 1024)
    assert result.vectors[0] == pytest.approx(fake_vector("I prefer email.", 1024), abs=1e-6)
    request = remote_providers.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["auth"] == "Bearer test-key"
    assert request["body"]["input_type"] == "document"


def test_a_query_asked_again_is_not_embedded_again(remote_providers):
    chain = get_chain()
    first = chain.embed(["Where does she live?"], input_type="query")
    assert chain.embed(["Where does she live?"], input_type="query") == first
    chain.embed(["Where does he live?"], input_type="query")
    chain.embed(["Where does she live?"])  # a document is always embedded
    assert [r["body"]["input"] for r in remote_providers.requests] == [
        ["Where does she live?"],
        ["Where does he live?"],
        ["Where does she live?"],
    ]
    assert remote_providers.requests[0]["body"]["input_type"] == "query"


@pytest.mark.parametrize("failure", ["429", "500", "timeout", "short", "wrong_dim"])
def test_a_failing_provider_fails_over_to_the_next(remote_providers, failure):
    remote_providers.script.extend([failure])
    result = get_chain().embed(["I prefer email."])
    assert (result.provider, result.model, result.dimension) == (
        "openai-small",
        "text-embedding-3-small",
        1536,
    )
    assert _paths(remote_providers) == ["voyage-3-large", "text-embedding-3-small"]


def test_three_failures_open_the_circuit_and_a_trial_closes_it(remote_providers):
    chain = get_chain()
    remote_providers.scripts["voyage-3-large"] = deque(["500", "500", "500"])
    for _ in range(3):
        assert chain.embed(["x"]).provider == "openai-small"
    assert chain.breakers["voyage"].state == "open"

    remote_providers.requests.clear()
    assert chain.embed(["x"]).provider == "openai-small"
    assert _paths(remote_providers) == ["text-embedding-3-small"]  # voyage not even asked

    time.sleep(0.35)  # BREAKER_COOLDOWN is 0.3 s in these tests
    assert chain.breakers["voyage"].state == "half_open"
    assert chain.embed(["x"]).provider == "voyage"
    assert chain.breakers["voyage"].state == "closed"


def test_everything_failing_raises(settings, remote_providers):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage", "openai-small"]
    from memories.services.embedding.providers import reset_chain

    reset_chain()
    remote_providers.script.extend(["500", "429"])
    with pytest.raises(AllProvidersFailed, match=r"voyage: .*openai-small: "):
        get_chain().embed(["x"])


def test_a_provider_without_its_key_is_left_out(settings, fake_provider):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage", "openai-large"]
    settings.VOYAGE_API_KEY = ""
    settings.OPENAI_API_KEY = "k"
    settings.OPENAI_BASE_URL = fake_provider.base_url
    from memories.services.embedding.providers import reset_chain

    reset_chain()
    result = get_chain().embed(["a", "b"])
    assert (result.provider, result.dimension) == ("openai-large", 3072)


def test_large_inputs_are_sent_in_batches(remote_providers):
    texts = [f"statement {i}" for i in range(300)]
    result = get_chain().embed(texts)
    assert len(result.vectors) == 300
    assert [len(r["body"]["input"]) for r in remote_providers.requests] == [128, 128, 44]


def _fail(breaker):
    permit = breaker.acquire()
    assert permit is not None
    breaker.release(permit, ok=False)


def test_breaker_forgets_failures_outside_the_window():
    now = [0.0]
    breaker = CircuitBreaker(failures=3, window=30, cooldown=30, clock=lambda: now[0])
    for t in (0, 10, 31):
        now[0] = t
        _fail(breaker)
    assert breaker.state == "closed"  # only two within any 30 s
    now[0] = 35
    _fail(breaker)
    assert breaker.state == "open"
    assert breaker.acquire() is None
    now[0] = 64
    assert breaker.state == "open"
    now[0] = 65
    assert breaker.state == "half_open"
    _fail(breaker)
    assert breaker.state == "open"
