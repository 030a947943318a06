"""A small call's statements are embedded on a thread of their own while its transaction
does the work that needs no vector, when the local model leaves a core free; otherwise,
and for a big call, before the transaction, on the request's thread."""

from __future__ import annotations

import logging
import threading

import pytest

from memories.models import EmbeddingSpace, Memory, MemoryEmbedding
from memories.services.embedding import local_model
from memories.services.embedding.multilingual import MultilingualEmbedder
from memoryhub import serving
from memoryhub.observability.request_ids import HEADER

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(serving.cores() < 2, reason="needs a core the embedder leaves free"),
]


class RecordingEmbedder(MultilingualEmbedder):
    """The shipped model, noting on which thread each call computed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.threads_seen: list[str] = []

    def embed(self, texts, *, input_type="document"):
        self.threads_seen.append(threading.current_thread().name)
        return super().embed(texts, input_type=input_type)


@pytest.fixture
def embedder_on(monkeypatch):
    def install(threads: int, **kwargs) -> RecordingEmbedder:
        embedder = RecordingEmbedder(threads=threads, **kwargs)
        monkeypatch.setitem(local_model._embedders, "local", embedder)
        return embedder

    return install


def _vectors(answer: dict) -> int:
    ids = [m["id"] for m in answer["memories"]]
    return MemoryEmbedding.objects.filter(memory_id__in=ids).count()


def test_a_single_event_is_embedded_beside_its_transaction_and_found(
    api_client, agent_key, embedder_on, post_event
):
    embedder = embedder_on(threads=1)
    # The space does not exist yet: it is created before the call's transaction.
    assert not EmbeddingSpace.objects.exists()
    answer = post_event("My daughter Sofia starts university in Bologna.")
    assert [m["action"] for m in answer["memories"]] == ["added"]
    assert _vectors(answer) == 1
    assert embedder.threads_seen == ["memoryhub-embed"]

    assert _vectors(post_event("Next week I fly to Lisbon for a conference.")) == 1
    assert embedder.threads_seen == ["memoryhub-embed"] * 2
    found = api_client.post(
        "/api/v1/search/",
        {"client": "emma", "query": "Which city is her child studying in?"},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    )
    assert found.status_code == 200
    assert "Bologna" in found.json()["results"][0]["content"]


def test_on_all_the_cores_the_request_embeds_itself(embedder_on, post_event):
    embedder = embedder_on(threads=serving.cores())
    assert _vectors(post_event("I live in Leeds.")) == 1
    assert embedder.threads_seen == [threading.current_thread().name]


def test_a_big_batch_embeds_before_its_transaction(api_client, agent_key, embedder_on):
    embedder = embedder_on(threads=1)
    cities = ["Leeds", "York", "Bath", "Derby", "Ely", "Wells", "Truro", "Ripon", "Lichfield"]
    events = [
        {"client": "emma", "content": f"My brother number {i} lives in {city}."}
        for i, city in enumerate(cities)
    ]
    response = api_client.post(
        "/api/v1/events/batch/",
        {"events": events},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    )
    assert response.status_code == 201, response.content
    assert embedder.threads_seen == [threading.current_thread().name]


def test_a_model_that_fails_beside_the_transaction_keeps_the_memory_without_a_vector(
    api_client, agent_key, embedder_on, tmp_path, caplog
):
    embedder = embedder_on(threads=1, model_dir=tmp_path)  # no model there
    with caplog.at_level(logging.WARNING, logger="memories.services.write.vectors"):
        response = api_client.post(
            "/api/v1/events/",
            {"client": "emma", "content": "I prefer to be contacted by email."},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {agent_key}",
            HTTP_X_REQUEST_ID="req-embed-beside",
        )
    assert response.status_code == 201, response.content
    assert response[HEADER] == "req-embed-beside"
    assert [m["action"] for m in response.json()["memories"]] == ["added"]
    assert _vectors(response.json()) == 0
    # The statements were embedded beside the transaction; what they are about is then read
    # with the local model on the request's own thread, and that fails the same way.
    assert embedder.threads_seen[0] == "memoryhub-embed"
    (warning,) = [r for r in caplog.records if "without embeddings" in r.getMessage()]
    assert warning.request_id == "req-embed-beside"


def test_a_provider_after_the_local_one_gets_its_space_for_the_next_call(
    settings, fake_provider, embedder_on, tmp_path, post_event
):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["local", "voyage"]
    settings.VOYAGE_API_KEY = "test-key"
    settings.VOYAGE_BASE_URL = fake_provider.base_url
    embedder_on(threads=1, model_dir=tmp_path)  # the local model fails: Voyage answers
    first = post_event("I prefer to be contacted by email.")
    assert _vectors(first) == 0
    assert Memory.objects.get(pk=first["memories"][0]["id"]).needs_embedding
    assert EmbeddingSpace.objects.filter(provider="voyage").exists()  # made after commit

    second = post_event("My daughter Sofia starts university in Bologna.")
    assert _vectors(second) == 1
