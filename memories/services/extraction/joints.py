"""Where a sentence splits into statements: at a joint ("and", "but", a comma, "e", "pero"…)
with a statement on each side, a clause a cue of ``patterns`` reads or a plan that names
its day; a question yields what it tells before it is asked."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import islice

from memories.services.extraction import patterns as cues
from memories.services.extraction.clauses import (
    STOPWORDS,
    classify,
    strip_clause,
    told_in_question,
)
from memories.services.extraction.normalise import match_form, words
from memories.services.extraction.time_expressions import looks_back, resolve_time

MAX_JOINTS = 12  # clause joints tried per sentence: bounds the cost of run-on lists


def _is_statement(text: str, language: str) -> bool:
    folded = match_form(strip_clause(text))
    match = classify(folded, language)
    if match is not None:
        return match.category != "request"
    # A plan or a deadline stands on its own ("the forms must be back in a fortnight, and
    # I'd rather you checked them"): split off, it keeps its day. A day alone ("maybe next
    # year") or told in a past tense is no plan.
    return (
        content_words(folded) >= _PLAN_WORDS
        and not looks_back(folded)
        and resolve_time(folded, _ANY_DAY).target is not None
    )


# Whether a clause names a day ahead does not depend on when it is said.
_ANY_DAY = datetime(2000, 1, 1, tzinfo=UTC)


def clauses_of(sentence: str, language: str, own: bool = True) -> list[tuple[str, bool]]:
    """(clause, lifted out of a question) pairs of one sentence. A joint splits where what
    comes before it is a statement and so is what comes after, up to the next joint: "by
    June 25, 2024, and I prefer…" and "using Node.js and Socket.io, and I want…" are not
    split before "2024" or "Socket.io", whose part says nothing alone, but at the "and" that
    follows."""
    if "?" in sentence or "¿" in sentence:
        return [(part, True) for part in told_in_question(sentence, language, own=own)]
    folded = match_form(sentence)
    if any(p.search(folded) for patterns in cues.PROCEDURES.values() for p in patterns):
        return [(sentence, False)]  # "first…, then…" is one procedure
    for joint in islice(cues.CONJUNCTION.finditer(sentence), MAX_JOINTS):
        left, right = sentence[: joint.start()], sentence[joint.end() :]
        if not (_is_statement(left, language) and _is_statement(right, language)):
            continue
        after = cues.CONJUNCTION.search(right)
        if after is None or _is_statement(right[: after.start()], language):
            return [(left, False), *clauses_of(right, language, own)]
    return [(sentence, False)]


def content_words(folded: str) -> int:
    return sum(1 for w in words(folded) if w not in STOPWORDS and len(w) > 1)


def substantive(folded: str) -> bool:
    """At least two content words: 'Tomorrow works' or 'Thanks so much' say nothing."""
    return content_words(folded) >= 2


# Content words a clause with a day needs to be a plan of its own: what, besides when.
_PLAN_WORDS = 4
