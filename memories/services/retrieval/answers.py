"""What kind of answer a question asks for, in English, Italian and Spanish.

"Who handles her taxes?" is answered by a memory that names a person, "When did she move?"
by one that says when, "How much has he saved?" by one that holds an amount. The ranking's
``answer`` component rewards such a memory a little (``DEFAULT_WEIGHTS``): among memories
that are about as close to the question, the one that can answer it comes first. The
memory's side is what the write path already records: the entity types its content names
(``Memory.tags``: person, amount, date…) and the day its text says it happened
(``Memory.occurred_on``). A question of no such kind rewards nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.text import fold

_LEAD = r"^\W*(?:(?:and|but|so|e|ma|y|pero)\s+)?"
# A preposition may come first: "With whom…", "A chi…", "¿Con quién…?".
_PREPOSITION = r"(?:(?:with|to|for|from|by|of|con|a|di|da|per|de|para|por)\s+)?"
_PERSON = re.compile(rf"{_LEAD}{_PREPOSITION}(?:who|whom|whose|chi|quien|quienes)\b")
_WHEN = re.compile(
    rf"{_LEAD}(?:since |until |till )?when\b"
    r"|\bwhat (?:date|day|year|month)\b|\bin (?:what|which) (?:year|month)\b"
    r"|\b(?:da |fino a )?quando\b|\bin (?:che|quale) (?:anno|mese|giorno|data)\b"
    r"|\b(?:desde |hasta )?cuando\b|\ben (?:que|cual) (?:ano|mes|dia|fecha)\b"
)
_AMOUNT = re.compile(
    r"\bhow much\b(?! (?:time|longer)\b)|\b(?:quanto|quanta)\b(?! tempo\b)"
    r"|\b(?:cuanto|cuanta)\b(?! tiempo\b)|\bwhat (?:amount|sum)\b"
)


@dataclass(frozen=True)
class Expected:
    """What a memory that answers holds: any of these entity types, or a day it happened."""

    tags: tuple[str, ...] = ()
    when: bool = False


NOTHING = Expected()


def expected_answer(query: str) -> Expected:
    folded = fold(query)
    tags = tuple(
        tag for tag, pattern in (("person", _PERSON), ("amount", _AMOUNT)) if pattern.search(folded)
    )
    when = bool(_WHEN.search(folded))
    if when:
        tags += ("date",)
    return Expected(tags=tags, when=when) if tags else NOTHING
