"""The two baselines memoryhub is measured against, both over the raw events: BM25 (the
classic lexical ranking) and dense retrieval with the same embedding model."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from memories.text import fold

_WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(fold(text)) if len(w) > 1]


class BM25:
    def __init__(self, documents: list[str], *, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(tokens(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.docs else 0.0
        frequency = Counter(term for d in self.docs for term in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def top(self, query: str, k: int) -> list[int]:
        terms = tokens(query)
        scores = []
        for index, (doc, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            score = 0.0
            for term in terms:
                f = doc.get(term)
                if f:
                    norm = f + self.k1 * (1 - self.b + self.b * length / (self.avg or 1))
                    score += self.idf[term] * f * (self.k1 + 1) / norm
            if score > 0:
                scores.append((score, index))
        return [index for _, index in sorted(scores, reverse=True)[:k]]


class Dense:
    def __init__(self, vectors: np.ndarray):
        self.vectors = vectors

    def top(self, query_vector: np.ndarray, k: int) -> list[int]:
        if not len(self.vectors):
            return []
        similarity = self.vectors @ query_vector
        return [int(i) for i in np.argsort(-similarity)[:k]]
