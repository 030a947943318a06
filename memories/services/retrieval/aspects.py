"""A question about several things at once: each of them has a place in the answer.

"How do the prices I mentioned for the Dell XPS 13, MacBook Air M2, and Lenovo ThinkPad X1
Carbon compare?", "How much have I paid for the USCIS filing fees and the medical exam
combined?", "Quanto ho speso per l'affitto e per la palestra?". Each thing was said in a
message of its own, often weeks apart, and the question's vector sits between them, near
none: the statement about one of them can rank below ten that are about none in particular.

The question is split where it lists things (a comma, "and", "or", "as well as", "e",
"oppure", "y", …) into its aspects, the parts that name something (two content words or
more); "How many days after A did B?" names two moments, A and B, and each is an aspect
too. Each aspect is searched as a question of its own, and its best answer, when the
first results of the whole question do not hold it, takes a place just after them: after
the whole question's first ``ASPECT_AFTER − aspects`` results (never fewer than
``ASPECT_KEEP``). A place, not a score: the whole question still decides everything else,
and a question that lists nothing is searched once, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memories.services.extraction.vocabulary import (
    FILLERS,
    GRAMMAR_WORDS,
    STOPWORDS,
    TEMPORAL_WORDS,
    WEAK_WORDS,
)
from memories.text import QUERY_WORD, fold

if TYPE_CHECKING:
    from memories.services.retrieval.pick import Hit

# Where a question lists: after a comma or semicolon, around a coordinating word (English,
# Italian, Spanish). "between A and B" lists A and B too; two names ("Evan and Sam") are
# one subject, not two.
_LISTS = re.compile(
    r"\s*[,;]\s*(?:(?:and|or|e|ed|o|oppure|y|u)\s+)?"
    r"|\s+(?:and|or|as well as|versus|vs\.?|e|ed|o|oppure|nonché|y|u|así como)\s+",
    re.IGNORECASE,
)
# "How many days after A did B?": two moments, A and B. The clause after the time word ends
# where the question's own auxiliary comes ("did", "was"; "ho", "è"; "hemos", "fue", …).
_MOMENTS = re.compile(
    r"\s+(?:after|before|since|until|dopo|prima|finché|después|antes|desde|hasta)\s+"
    r"(?P<first>.+?)\s+(?:did|was|were|had|has|have|do|does|will|is|are"
    r"|ho|hai|ha|abbiamo|hanno|sono|è|era|hemos|han|había|fue|fui)\s+",
    re.IGNORECASE,
)
# An aspect names something: two words that are neither grammar, nor a pronoun, a time or
# a question word ("May so far", "what did my sister" are not aspects).
ASPECT_WORDS = 2
# Question words and the speaker's own pronouns, in the three languages.
_ASKING = """
    how what when where who why which whose much many did done i my mine me you your
    come cosa quale quali dove chi perche quanto quanta quanti quante mi
    como cual cuales donde quien cuanto cuanta cuantos cuantas
"""
_NAME_NOTHING = (
    GRAMMAR_WORDS
    | WEAK_WORDS
    | TEMPORAL_WORDS
    | frozenset(FILLERS.split())
    | frozenset(STOPWORDS.split())
    | frozenset(_ASKING.split())
)
# More aspects than this is a list to read as a whole: each would cost a search of its own.
MOST_ASPECTS = 4
# The aspects' answers come after the whole question's first ``ASPECT_AFTER − aspects``
# results (a ten-result answer keeps its own first eight of two aspects), never fewer than
# ``ASPECT_KEEP``. Constants, not ``k``: the same question answers the same first results
# at every ``k``.
ASPECT_AFTER = 10
ASPECT_KEEP = 5


def aspects(question: str) -> list[str]:
    """The parts of ``question`` that each name something, when it names two to
    ``MOST_ASPECTS`` of them; otherwise none."""
    parts, start = [], 0
    for found in _LISTS.finditer(question):
        # The words on either side (a name is never longer than the window).
        before = question[max(0, found.start() - 40) : found.start()].split()[-1:]
        after = question[found.end() : found.end() + 40].split()[:1]
        if "," not in found[0] and before and after and _is_name(*before) and _is_name(*after):
            continue
        parts.append(question[start : found.start()])
        start = found.end()
    parts = [part.strip(" ?!.:") for part in [*parts, question[start:]]]
    parts = [moment for part in parts for moment in _moments(part)]
    named = [part for part in parts if _names_something(part)]
    return named if 2 <= len(named) <= MOST_ASPECTS else []


def _moments(part: str) -> list[str]:
    found = _MOMENTS.search(part)
    if not found:
        return [part]
    return [part[: found.start()], found["first"], part[found.end() :]]


_NAME = re.compile(r"[^\W\d_a-z][^\W\d_]*(?:['’]s)?[?!.]*")


def _is_name(word: str) -> bool:
    return bool(_NAME.fullmatch(word)) and word[0].isupper()


def _names_something(part: str) -> bool:
    words = {w for w in QUERY_WORD.findall(fold(part)) if w not in _NAME_NOTHING}
    return len(words) >= ASPECT_WORDS


def with_aspects(
    hits: list[Hit], question: str, best: Callable[[str], Sequence[Hit]], k: int
) -> list[Hit]:
    """The ``k`` best of ``hits`` (the whole question's answer, best first) with the best
    answer to each of its aspects (``best(aspect)``) that the first of them lack, placed
    after those first. Every hit says whether it came in for an aspect
    (``scores["aspect"]``)."""
    for hit in hits:
        hit.scores["aspect"] = 0.0
    parts = aspects(question) if hits else []
    if not parts:
        return hits
    kept = max(ASPECT_KEEP, ASPECT_AFTER - len(parts))
    first = hits[:kept]
    seen = {h.memory.pk for h in first} | {h.memory.content_hash for h in first}
    added = []
    for part in parts:
        for hit in best(part)[:1]:
            if hit.memory.pk in seen or hit.memory.content_hash in seen:
                continue
            seen |= {hit.memory.pk, hit.memory.content_hash}
            hit.scores["aspect"] = 1.0
            added.append(hit)
    if not added:
        return hits
    return (first + added + [h for h in hits[kept:] if h.memory.pk not in seen])[:k]
