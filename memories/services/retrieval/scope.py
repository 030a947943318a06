"""What a standing instruction is for, and whether a question is within it.

A client's instruction often names its scope: "Always provide step-by-step calculations
when I ask about distance formulas", "Quando ti chiedo dei fondi, indica sempre le
commissioni", "Cuando te pregunte por impuestos, dame siempre la fecha límite". Such an
instruction must come back with the questions it is for ("How do I find the distance
between (4, 7) and (1, 3)?"), which rarely share its wording: the ``scope`` component is the
share of the scope's words the question has (a word and its forms meet: "schedules" and
"scheduled"), read from the memory's content at pick time, so a sealed tenant's content is
read as the rest of the pick reads it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.db import connection

from memories.models import Memory
from memories.services.extraction.wording import stem, wording
from memories.services.retrieval.pick import Candidate
from memories.services.retrieval.statement import SCORED_COLUMNS
from memories.text import fold

# The clause that names the scope, on folded text, in English, Italian and Spanish, up to
# the end of the clause: "when(ever) I ask (you) about…", "when asking about…", "if we talk
# about…", "for questions about…"; "quando/se/ogni volta che ti chiedo (di/su)…", "quando
# parliamo di…"; "cuando/si/cada vez que te pregunte (por/sobre)…", "cuando hablemos de…".
_SCOPE = re.compile(
    r"\b(?:"
    r"(?:when(?:ever)?|if|each time|every time)\s(?:i|we)(?:'m| am| are)?\s"
    r"(?:ask(?:ing)?|talk(?:ing)?|write|writing|inquire|discuss(?:ing)?|bring up|work(?:ing)? on)"
    r"(?:\syou)?(?:\s(?:about|for|on|regarding|around|into|over))?"
    r"|when(?:ever)?\s(?:asking|discussing|talking)(?:\s(?:about|for|regarding))?"
    r"|for (?:any |all )?(?:questions|requests|anything)\s(?:about|on|regarding|related to)"
    r"|(?:quando|se|ogni volta che)\s(?:ti\s)?(?:chiedo|chiediamo|domando|parlo|parliamo)"
    r"(?:\s(?:qualcosa\s)?(?:di|su|sul|sulla|sui|sulle|del|della|dei|delle|degli|riguardo a))?"
    r"|(?:cuando|si|cada vez que)\s(?:te\s)?"
    r"(?:pregunte|pregunto|preguntemos|hable|hablo|hablemos|hablamos)"
    r"(?:\s(?:por|sobre|acerca de|de|del))?"
    r")\s(?P<scope>[^,.;:!?]+)"
)

# Words a scope holds that say nothing of its subject: "anything", "things", "details".
_SAYS_NOTHING = frozenset(
    stem(word)
    for group in (
        ("anything", "something", "things", "stuff", "topics", "questions", "details"),
        ("cose", "qualcosa", "argomenti", "domande", "cosas", "algo", "temas", "preguntas"),
    )
    for word in group
)


def scope_words(content: str) -> frozenset[str]:
    """The stems of what an instruction says it is for (its content words, as the jobs
    that compare statements read them); empty when it names no scope."""
    found = _SCOPE.search(fold(content))
    return wording(found.group("scope")).words - _SAYS_NOTHING if found else frozenset()


def query_stems(query: str) -> frozenset[str]:
    return wording(query).words


def in_scope(scope: frozenset[str], asked: frozenset[str]) -> float:
    """The share of the scope's words that the question has (0 without a scope)."""
    return len(scope & asked) / len(scope) if scope else 0.0


_CATEGORY = SCORED_COLUMNS.index("category")


def scoped(candidates: list[Candidate], query: str, weight: float) -> list[Candidate]:
    """The candidates with each preference's ``scope`` component added to its base score
    (``weight`` × the share of its scope the question is in), best base score first."""
    if not weight:
        return candidates
    asked = query_stems(query)
    changed = False
    out = []
    for candidate in candidates:
        if candidate.columns[_CATEGORY] == "preference":
            memory = Memory.from_db(connection.alias, SCORED_COLUMNS, candidate.columns)
            if share := in_scope(scope_words(memory.content), asked):
                candidate = replace(candidate, base=candidate.base + weight * share, scope=share)
                changed = True
        out.append(candidate)
    return sorted(out, key=lambda c: -c.base) if changed else candidates
