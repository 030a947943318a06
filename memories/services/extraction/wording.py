"""What a statement says, word by word, for the batch jobs that compare statements (fusion,
consolidation, summaries): folded tokens, a light stem, and the words that change a
meaning however close two embeddings are (numbers, negations, names, days).

English, Italian and Spanish; a stem is the word without a plural or -ing/-ed ending, cut
to six letters ("contacted" and "contact" meet, "figlio" and "figlia" do not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memories.services.extraction.normalise import COUNT_WORDS, stated_numbers
from memories.services.extraction.vocabulary import (
    GRAMMAR_WORDS,
    NEGATIONS,
    TEMPORAL_WORDS,
    WEAK_WORDS,
)
from memories.text import fold

_TOKEN = re.compile(r"[^\W_]+")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def stem(word: str) -> str:
    for _ in range(2):
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        else:
            break
    return word[:6]


@dataclass(frozen=True)
class Wording:
    words: frozenset[str]  # stems of every meaningful word, weak ones included
    core: frozenset[str]  # stems that carry the fact: no weak word, no number, no negation
    numbers: frozenset[str]  # the quantities stated ("two" and "2" are the same)
    negations: tuple[str, ...]  # the negative markers, normalised

    def overlap(self, other: Wording) -> float:
        """Jaccard of the two statements' words."""
        union = self.words | other.words
        return len(self.words & other.words) / len(union) if union else 0.0


@lru_cache(maxsize=65536)
def wording(text: str) -> Wording:
    tokens = _TOKEN.findall(fold(text).replace("n't", " not "))
    meaningful = [
        t
        for t in tokens
        if t not in GRAMMAR_WORDS
        and t not in NEGATIONS
        and not t.isdigit()
        and t not in COUNT_WORDS
    ]
    return Wording(
        words=frozenset(stem(t) for t in meaningful),
        core=frozenset(stem(t) for t in meaningful if t not in WEAK_WORDS),
        numbers=frozenset(stated_numbers(text)),
        negations=tuple(sorted({NEGATIONS[t] for t in tokens if t in NEGATIONS})),
    )


_DANGLING = re.compile(r"\b(?:on|in|at|the|of|every|il|la|di|de|del|el|este|esta)[.,;:!?]*$")


def without_time(text: str) -> str:
    """``text`` without its day and time words, tidied: "I met James last Tuesday." →
    "I met James." (the pattern an episode repeats)."""
    kept = [
        token
        for token in text.split()
        if fold(token.strip(".,;:!?\"'()")) not in TEMPORAL_WORDS or not token.strip(".,;:!?")
    ]
    tidy = " ".join(kept).strip()
    tidy = re.sub(r"\s+([.,;:!?])", r"\1", tidy)
    tidy = _DANGLING.sub("", tidy).strip(" ,;:")
    if tidy and tidy[-1] not in ".!?":
        tidy += "."
    return tidy or text
