"""The relevance floor: whether a search has an answer at all.

A question about nothing the client said gets nothing, not the client's nearest memories;
a plain question asked in other words gets its answer. What it takes depends on what the
question asks (``asks_whether``):

- **A value** ("Where does she live now?", "¿A qué se dedica?", "Quanto rischio vuole
  prendersi?"): the client has a value of it when a memory is close in meaning
  (``SEARCH_FLOOR_SEMANTIC``: the memory's cosine or its message's), or about the same
  topic (``SEARCH_FLOOR_TOPIC``, ``topics``) and not far in meaning
  (``SEARCH_FLOOR_SEMANTIC_TOPIC``), or holds most of the question's words
  (``SEARCH_FLOOR_COVERAGE``).
- **Whether something is so** ("Does she own a yacht?", "Ha mai vissuto a Londra?",
  "¿Tiene perro?"): only a memory that says it answers. Near in topic is not enough (a
  house is not a yacht, Turin is not London): it takes a memory closer in meaning
  (``SEARCH_FLOOR_SEMANTIC_WHETHER``), most of the question's words, or a memory about the
  same topic and close (``SEARCH_FLOOR_TOPIC_WHETHER``,
  ``SEARCH_FLOOR_SEMANTIC_TOPIC_WHETHER``): "Is she still married?" is answered by "Ci
  sposiamo in comune tra tre mesi".

- **Keywords** read surely as a topic ask for a value; keywords that read as none
  ("kubernetes ingress controller") are answered by a memory that says one of their words
  and is near in meaning, or one as close as a yes or no needs (``floor_for``).

Once a search has an
answer, the answer is the ranking as it stands: cutting results one by one by an absolute
score costs recall (docs/decisions.md). Measured as a decision, "answer" against "nothing",
on the advisor sets (``bench/advisor.py``): see docs/decisions.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.conf import cosine_setting, setting
from memories.services.extraction.normalise import match_form


@dataclass(frozen=True)
class Relevance:
    """Of every candidate of a search: the best cosine of a memory and of the message it
    was said in, the best share of the query's word weight, how many there were, and the
    best topic overlap among those not far in meaning."""

    best_semantic: float
    best_context: float
    best_coverage: float
    candidates: int
    best_topic: float

    @property
    def closest(self) -> float:
        return max(self.best_semantic, self.best_context)


# A question for a value opens with, or holds, a word that asks one (en / it / es, folded).
_ASKS_VALUE = re.compile(
    r"\b(?:what|what's|whats|where|when|who|whom|whose|how|which|why|quale|quali|qual|che"
    r"|chi|dove|quando|come|quanto|quanta|quanti|quante|perche|cosa|que|donde|cuando|quien"
    r"|quienes|como|cuanto|cuanta|cuantos|cuantas|cual|cuales)\b"
)


# A yes-or-no question in English opens with its verb; in Italian and Spanish it is told by
# its question mark alone.
_VERB_FIRST = re.compile(
    r"^\W*(?:do|does|did|is|are|was|were|has|have|had|will|would|can|could|should|shall|may"
    r"|might|must|am)\b"
)
# Asking the assistant to do something is a request for what it finds, not a yes or no:
# "Can you give me a summary of…", "¿Puedes decirme…?", "Mi puoi ricordare…?".
_REQUEST = re.compile(
    r"^\W*(?:(?:can|could|would|will) you|please|puoi|puo|potresti|potrebbe|mi sai|sai dirmi"
    r"|puedes|puede|podrias|podria|me puedes|me puede|me podrias|me podria|sabes)\b"
)


VALUE, WHETHER, KEYWORDS = "value", "whether", "keywords"


def question_kind(query: str) -> str:
    """What the query asks: a value (``VALUE``: "Where does she live now?", or a request
    to the assistant: "Can you give me a summary of…"), whether something is so
    (``WHETHER``: "Does she own a yacht?", "¿Tiene perro?"), or neither, words alone
    (``KEYWORDS``: "preferred contact channel")."""
    folded = match_form(query)
    if _ASKS_VALUE.search(folded) or _REQUEST.search(folded):
        return VALUE
    if "?" in query or _VERB_FIRST.search(folded):
        return WHETHER
    return KEYWORDS


def floor_for(kind: str, topics: tuple[tuple[str, float], ...]) -> str:
    """The floor a search is held to: a question's own (``question_kind``), and keywords
    that read surely as something a client tells of ("preferred contact channel",
    "mortgage", "hijos": a topic at ``SEARCH_FLOOR_KEYWORDS_TOPIC``) a value's. Keywords
    that read as none ("kubernetes ingress controller", "login API speed") keep
    ``KEYWORDS``: what answers them says one of their words, or is as close as a yes or no
    needs (``Floor.answers``)."""
    if kind == KEYWORDS:
        surely = float(setting("SEARCH_FLOOR_KEYWORDS_TOPIC"))
        return VALUE if any(probability >= surely for _, probability in topics) else KEYWORDS
    return kind


@dataclass(frozen=True)
class Floor:
    """The thresholds, for cosines of one model's vectors (``configured``)."""

    semantic: float
    semantic_topic: float
    semantic_whether: float
    semantic_topic_whether: float
    topic: float
    topic_whether: float
    coverage: float

    @classmethod
    def configured(cls, model: str | None = None) -> Floor:
        """The floor for cosines of ``model``'s vectors (None: the default model's)."""
        return cls(
            semantic=cosine_setting("SEARCH_FLOOR_SEMANTIC", model),
            semantic_topic=cosine_setting("SEARCH_FLOOR_SEMANTIC_TOPIC", model),
            semantic_whether=cosine_setting("SEARCH_FLOOR_SEMANTIC_WHETHER", model),
            semantic_topic_whether=cosine_setting("SEARCH_FLOOR_SEMANTIC_TOPIC_WHETHER", model),
            topic=float(setting("SEARCH_FLOOR_TOPIC")),
            topic_whether=float(setting("SEARCH_FLOOR_TOPIC_WHETHER")),
            coverage=float(setting("SEARCH_FLOOR_COVERAGE")),
        )

    def answers(self, relevance: Relevance, *, asks: str) -> bool:
        """Whether the search has an answer, held to the floor ``asks`` names
        (``floor_for``)."""
        if relevance.best_coverage >= self.coverage:
            return True
        whether = relevance.closest >= self.semantic_whether or (
            relevance.best_topic >= self.topic_whether
            and relevance.closest >= self.semantic_topic_whether
        )
        if asks == WHETHER:
            return whether
        if asks == KEYWORDS:
            return whether or (relevance.best_coverage > 0 and relevance.closest >= self.semantic)
        return relevance.closest >= self.semantic or (
            relevance.best_topic >= self.topic and relevance.closest >= self.semantic_topic
        )

    def matches(self, scores: dict[str, float]) -> bool:
        """Whether one hit (its score components) is an answer by itself, held to a value's
        floor: it says one of the query's words, is close in meaning, or is about the same
        topic and not far. A person browsing reads these as the matches; an agent's answer
        stays the ranking as it stands (``answers``, and the module's docstring)."""
        closest = max(scores.get("semantic", 0.0), scores.get("context", 0.0))
        return (
            scores.get("text", 0.0) > 0
            or closest >= self.semantic
            or (scores.get("topic", 0.0) >= self.topic and closest >= self.semantic_topic)
        )


def hits_matching(hits: list, client) -> list:
    """The hits of a search of ``client`` that match by themselves (``Floor.matches``), in
    rank order: what the client page lists as matches."""
    space = client.tenant.embedding_space
    floor = Floor.configured(space.model if space else None)
    return [hit for hit in hits if floor.matches(hit.scores)]
