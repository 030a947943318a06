"""The relevance floor: whether a search has an answer at all."""

from __future__ import annotations

from dataclasses import dataclass

from memories.conf import cosine_setting, setting


@dataclass(frozen=True)
class Relevance:
    """Of every candidate of a search: the best and the median cosine, the best share of
    the query's word weight, and how many there were."""

    best_semantic: float
    median_semantic: float
    best_coverage: float
    candidates: int


@dataclass(frozen=True)
class Floor:
    """Relevance, so that "nothing matches" is an answer. An answer needs one candidate
    close in meaning (cosine ``semantic``), or holding a good share of the query's word
    weight (``coverage``), or standing out from the rest (its cosine ``gap`` above the
    candidates' median: a question put in other words than the memory's is still nearer to
    it than to the others, a query about nothing the client said is near nothing in
    particular). A client with fewer candidates than ``GAP_CANDIDATES`` has no median to
    stand out from: there a candidate needs only ``semantic_few`` (with little to choose
    from, a loose paraphrase is still the answer). Once it has one, the answer is the
    ranking as it stands: cutting results one by one by an absolute score costs recall
    (docs/decisions.md)."""

    semantic: float
    coverage: float
    gap: float
    semantic_few: float
    GAP_CANDIDATES = 8

    @classmethod
    def configured(cls, model: str | None = None) -> Floor:
        """The floor for cosines of ``model``'s vectors (None: the default model's)."""
        return cls(
            cosine_setting("SEARCH_FLOOR_SEMANTIC", model),
            float(setting("SEARCH_FLOOR_COVERAGE")),
            cosine_setting("SEARCH_FLOOR_GAP", model),
            cosine_setting("SEARCH_FLOOR_SEMANTIC_FEW", model),
        )

    def answers(self, relevance: Relevance) -> bool:
        if relevance.best_semantic >= self.semantic or relevance.best_coverage >= self.coverage:
            return True
        if relevance.candidates < self.GAP_CANDIDATES:
            return relevance.best_semantic >= self.semantic_few
        return relevance.best_semantic - relevance.median_semantic >= self.gap
