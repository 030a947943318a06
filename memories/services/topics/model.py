"""Reading a statement's or a question's topic: a linear classifier over the default local
model's vectors (multilingual-e5-small, centred), trained on the team's own sentences in
English, Italian and Spanish (``corpus/``) by ``tools/build_topic_model.py``.

The vectors are the ones memoryhub computes anyway: a statement's as stored, a question's as
searched. So reading a topic costs a product of a few hundred numbers, and the same
statement said in another language reads as the same topic because its vector is close.
Where the tenant's vectors are another model's (or it stores none), the texts are embedded
with the local model for this alone (``read_texts``).

The classifier and its manifest are shipped beside this file; the manifest names the
corpus it was trained on (a sha256 of the files), so the suite knows when it is stale.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memories.services.topics.taxonomy import BY_NAME, OTHER, SMALL_TALK

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
CLASSIFIER = HERE / "classifier.npz"
MANIFEST = HERE / "classifier.json"
# The model whose vectors the classifier reads.
MODEL = "multilingual-e5-small"
# A topic this likely is listed in a reading's distribution (and kept with the memory).
LISTED = 0.05


@dataclass(frozen=True)
class Reading:
    """The most likely topic and its probability; the runner-up, for what is close."""

    topic: str
    probability: float
    second: str = ""
    second_probability: float = 0.0
    # Every topic at least ``LISTED`` likely, most likely first.
    distribution: tuple[tuple[str, float], ...] = ()

    @property
    def small_talk(self) -> bool:
        return self.topic == SMALL_TALK

    def is_(self, topic: str, at_least: float) -> bool:
        return self.topic == topic and self.probability >= at_least


NOTHING = Reading(OTHER, 0.0)


@dataclass(frozen=True)
class Classifier:
    topics: tuple[str, ...]
    weights: np.ndarray  # (dimension, topics)
    bias: np.ndarray  # (topics,)
    mean: np.ndarray  # (dimension,): the training vectors' mean, taken off first

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        units = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        scores = (units - self.mean) @ self.weights + self.bias
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)

    def read(self, vectors) -> list[Reading]:
        array = np.asarray(vectors, dtype=np.float32)
        if array.size == 0:
            return []
        if array.ndim == 1:
            array = array[None, :]
        readings = []
        for row in self.probabilities(array):
            order = np.argsort(-row)
            first, second = order[:2]
            readings.append(
                Reading(
                    self.topics[first],
                    round(float(row[first]), 4),
                    self.topics[second],
                    round(float(row[second]), 4),
                    tuple(
                        (self.topics[i], round(float(row[i]), 4)) for i in order if row[i] >= LISTED
                    ),
                )
            )
        return readings


@functools.cache
def classifier() -> Classifier | None:
    """The shipped classifier (None when it is missing: no topic is read)."""
    if not CLASSIFIER.exists():
        return None
    with np.load(CLASSIFIER, allow_pickle=False) as arrays:
        topics = tuple(str(t) for t in arrays["topics"])
        unknown = set(topics) - set(BY_NAME)
        if unknown:
            raise ValueError(f"{CLASSIFIER} names topics the taxonomy does not: {unknown}")
        return Classifier(
            topics=topics,
            weights=arrays["weights"].astype(np.float32),
            bias=arrays["bias"].astype(np.float32),
            mean=arrays["mean"].astype(np.float32),
        )


def read_vectors(vectors) -> list[Reading]:
    """The topic of each vector of ``MODEL`` (a statement's ``passage:`` vector or a
    question's ``query:`` one)."""
    found = classifier()
    if found is None:
        return [NOTHING] * len(vectors)
    return found.read(vectors)


def read_texts(texts: list[str], *, input_type: str) -> list[Reading]:
    """The topic of each text, embedded with the local model for this (``input_type``:
    ``document`` for statements, ``query`` for questions)."""
    if not texts:
        return []
    from memories.services.embedding.local_model import get_local_embedder
    from memories.services.embedding.onnx_encoder import LocalModelError

    try:
        vectors = get_local_embedder("local").embed(list(texts), input_type=input_type)
    except LocalModelError as exc:
        # No local model to read with: no topic is read, and everything else goes on.
        logger.warning("topics not read: %s", exc)
        return [NOTHING] * len(texts)
    return read_vectors(vectors)


def corpus_digest() -> str:
    """A sha256 of the training corpus as it is on disk (the manifest holds the one the
    shipped classifier was trained on)."""
    digest = hashlib.sha256()
    for path in sorted(CORPUS.glob("*.jsonl")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def manifest() -> dict:
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
