"""Train the topic classifier (``memories/services/topics/classifier.npz``) on the team's
corpus (``memories/services/topics/corpus/``), and measure it.

Run by a developer after changing the corpus or the taxonomy, never by the product:

    .venv/bin/python tools/build_topic_model.py [--check]

Every sentence of the corpus is embedded with the shipped local model as the product embeds
it (statements as ``passage:``, questions as ``query:``, centred); a softmax regression is
fitted on those vectors (full-batch gradient descent from zero: the same corpus gives the
same classifier). Before the shipped one is fitted on everything, it is measured two ways
and the figures kept in the manifest (``classifier.json``):

- five-fold cross-validation over all sentences: accuracy, and the precision and coverage
  of the readings at or above a few probabilities;
- across languages: fitted on two languages, read on the third (how it does on wordings
  it has never seen in that language).

``--check`` measures without writing anything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memories.services.embedding.local_model import get_local_embedder  # noqa: E402
from memories.services.topics import model  # noqa: E402
from memories.services.topics.taxonomy import TOPICS  # noqa: E402

LANGUAGES = ("en", "it", "es")
# Each file's sentences and how they are embedded: statements and the hard cases (read, as
# the write path reads an answer, with the question before them when there is one) as
# passages, questions as queries.
KINDS = {"statements": "document", "hard": "document", "questions": "query"}
# Fitting: chosen by the cross-validation this tool prints (docs/decisions/).
EPOCHS, RATE, L2 = 2000, 5.0, 1e-4
FOLDS = 5
THRESHOLDS = (0.4, 0.5, 0.6, 0.7, 0.8)


def corpus() -> list[dict]:
    rows = []
    for kind in KINDS:
        for language in LANGUAGES:
            path = model.CORPUS / f"{kind}_{language}.jsonl"
            if not path.exists():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                row = json.loads(line)
                if row["topic"] not in model.BY_NAME:
                    raise SystemExit(f"{path}:{number}: unknown topic {row['topic']!r}")
                if asked := row.get("asked", "").strip():
                    row = {**row, "text": f"{asked} {row['text']}"}
                rows.append({**row, "kind": kind, "language": language})
    return rows


def embedded(rows: list[dict]) -> np.ndarray:
    embedder = get_local_embedder("local")
    vectors = np.zeros((len(rows), embedder.dimension), dtype=np.float32)
    for kind, input_type in KINDS.items():
        at = [i for i, row in enumerate(rows) if row["kind"] == kind]
        found = embedder.embed([rows[i]["text"] for i in at], input_type=input_type)
        vectors[at] = np.asarray(found, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def fit(vectors: np.ndarray, labels: np.ndarray, classes: int) -> model.Classifier:
    mean = vectors.mean(axis=0)
    centred = vectors - mean
    weights = np.zeros((vectors.shape[1], classes), dtype=np.float32)
    bias = np.zeros(classes, dtype=np.float32)
    targets = np.eye(classes, dtype=np.float32)[labels]
    for _ in range(EPOCHS):
        scores = centred @ weights + bias
        scores -= scores.max(axis=1, keepdims=True)
        probabilities = np.exp(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        gradient = (probabilities - targets) / len(vectors)
        weights -= RATE * (centred.T @ gradient + L2 * weights)
        bias -= RATE * gradient.sum(axis=0)
    names = tuple(t.name for t in TOPICS)
    return model.Classifier(names, weights, bias, mean.astype(np.float32))


def measured(vectors, labels, rows) -> dict:
    classes = len(TOPICS)
    folds = np.arange(len(rows)) % FOLDS
    np.random.default_rng(0).shuffle(folds)
    probabilities = np.zeros((len(rows), classes), dtype=np.float32)
    for fold in range(FOLDS):
        held = folds == fold
        fitted = fit(vectors[~held], labels[~held], classes)
        probabilities[held] = fitted.probabilities(vectors[held])
    best, predicted = probabilities.max(axis=1), probabilities.argmax(axis=1)
    right = predicted == labels
    figures: dict = {
        "sentences": len(rows),
        "cross_validated_accuracy": round(float(right.mean()), 3),
        "at_probability": {
            str(t): {
                "coverage": round(float((best >= t).mean()), 3),
                "precision": round(float(right[best >= t].mean()), 3),
            }
            for t in THRESHOLDS
        },
    }
    languages = np.array([row["language"] for row in rows])
    figures["across_languages"] = {}
    for language in LANGUAGES:
        held = languages == language
        fitted = fit(vectors[~held], labels[~held], classes)
        read = fitted.probabilities(vectors[held]).argmax(axis=1)
        figures["across_languages"][language] = round(float((read == labels[held]).mean()), 3)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="measure, write nothing")
    args = parser.parse_args()
    started = time.monotonic()
    rows = corpus()
    names = [t.name for t in TOPICS]
    labels = np.array([names.index(row["topic"]) for row in rows])
    vectors = embedded(rows)
    figures = measured(vectors, labels, rows)
    print(json.dumps(figures, indent=1))
    if args.check:
        return
    shipped = fit(vectors, labels, len(TOPICS))
    np.savez_compressed(
        model.CLASSIFIER,
        topics=np.array(shipped.topics),
        weights=shipped.weights,
        bias=shipped.bias,
        mean=shipped.mean,
    )
    model.MANIFEST.write_text(
        json.dumps(
            {
                "model": model.MODEL,
                "corpus_sha256": model.corpus_digest(),
                "fitting": {"epochs": EPOCHS, "rate": RATE, "l2": L2},
                "figures": figures,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {model.CLASSIFIER} in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
