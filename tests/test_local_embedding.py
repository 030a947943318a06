"""The offline embedder against vectors made by the real sentence-transformers library
(tests/data/minilm_reference.json, written by tools/build_local_model.py). No database."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from memories.services.embedding.local_model import (
    MODEL_DIR,
    LocalModelError,
    MiniLMEmbedder,
    get_local_embedder,
)

REFERENCE_FILE = Path(__file__).parent / "data" / "minilm_reference.json"
REFERENCE = json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))
SENTENCES = {s["id"]: s for s in REFERENCE["sentences"]}
TEXTS = [s["text"] for s in REFERENCE["sentences"]]
MIN_REFERENCE_COSINE = 0.999
MIN_BATCH_COSINE = 0.99999


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    embedder = get_local_embedder("local-minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    return embedder


@pytest.fixture(scope="module")
def vectors(embedder) -> np.ndarray:
    return np.asarray(embedder.embed(TEXTS))


def test_vectors_have_384_unit_norm_float_dimensions(embedder, vectors):
    assert (embedder.provider, embedder.model, embedder.dimension) == (
        "local",
        "all-MiniLM-L6-v2",
        384,
    )
    assert vectors.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert all(type(x) is float for x in embedder.embed(["Hello"])[0])


def test_matches_sentence_transformers_for_every_sentence(vectors):
    cosines = (vectors * np.asarray([s["vector"] for s in REFERENCE["sentences"]])).sum(axis=1)
    worst = sorted(zip(cosines, SENTENCES, strict=True))[:3]
    assert cosines.min() >= MIN_REFERENCE_COSINE, worst


def test_text_past_256_tokens_is_truncated(embedder):
    long = SENTENCES["en-long-truncated"]
    assert long["tokens_untruncated"] > 256  # the reference really exercises truncation
    base, extended = embedder.embed([long["text"], long["text"] + " And one more thing."])
    assert np.dot(base, extended) >= MIN_BATCH_COSINE


def test_batched_equals_one_by_one(vectors):
    small_batches = MiniLMEmbedder(batch_size=5)  # several batches, each padded differently
    one_by_one = np.asarray([small_batches.embed([text])[0] for text in TEXTS])
    for batched in (vectors, np.asarray(small_batches.embed(TEXTS))):
        assert (batched * one_by_one).sum(axis=1).min() >= MIN_BATCH_COSINE


def test_empty_input_returns_empty_list(embedder):
    assert embedder.embed([]) == []


def test_paraphrase_is_closer_than_unrelated(embedder):
    cat, rug, market, password, forgot = embedder.embed(
        [
            SENTENCES["en-cat"]["text"],
            SENTENCES["en-cat-paraphrase"]["text"],
            SENTENCES["en-market"]["text"],
            SENTENCES["en-password"]["text"],
            SENTENCES["en-password-paraphrase"]["text"],
        ]
    )
    assert np.dot(cat, rug) > np.dot(cat, market) + 0.2
    assert np.dot(password, forgot) > np.dot(password, market) + 0.2


@pytest.fixture
def model_copy(tmp_path) -> Path:
    return Path(shutil.copytree(MODEL_DIR, tmp_path / "local_model"))


def test_tampered_model_file_is_refused(model_copy):
    model = model_copy / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0x01
    model.write_bytes(bytes(data))
    with pytest.raises(LocalModelError, match=r"model\.onnx differs from its manifest"):
        MiniLMEmbedder(model_dir=model_copy).embed(["hello"])


def test_missing_model_file_is_refused(model_copy):
    (model_copy / "tokenizer.json").unlink()
    with pytest.raises(LocalModelError, match=r"tokenizer\.json is missing"):
        MiniLMEmbedder(model_dir=model_copy).embed(["hello"])


def test_thread_count_from_the_environment_must_be_positive(monkeypatch):
    monkeypatch.setenv("MEMORYHUB_LOCAL_EMBEDDER_THREADS", "0")
    with pytest.raises(ValueError, match="MEMORYHUB_LOCAL_EMBEDDER_THREADS"):
        MiniLMEmbedder().load()


def test_concurrent_first_calls_load_once(monkeypatch):
    opened = []
    original = MiniLMEmbedder._open

    def counting_open(self):
        opened.append(self)
        return original(self)

    monkeypatch.setattr(MiniLMEmbedder, "_open", counting_open)
    fresh, start = MiniLMEmbedder(threads=1), threading.Barrier(4)
    results: list[list[list[float]]] = []

    def worker() -> None:
        start.wait()
        results.append(fresh.embed(["Il gatto dorme sul divano."]))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(opened) == 1
    assert len(results) == 4 and all(r == results[0] for r in results)


def test_one_embedder_per_process():
    assert get_local_embedder("local-minilm") is get_local_embedder("local-minilm")
