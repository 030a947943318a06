"""What kind of answer a question asks for, in English, Italian and Spanish.

"Who handles her taxes?" is answered by a memory that names a person, "When did she move?"
by one that says when, "How much has he saved?" by one that holds an amount. The ranking's
``answer`` component rewards such a memory a little (``DEFAULT_WEIGHTS``): among memories
that are about as close to the question, the one that can answer it comes first. The
memory's side is what the write path already records: the entity types its content names
(``Memory.tags``: person, amount, date…) and the day its text says it happened
(``Memory.occurred_on``). A question of no such kind rewards nothing.

Advice or help asked of the assistant ("What would you suggest for my portfolio?", "Can you
help me plan the move?") is answered within what the client prefers, standing instructions
included ("Always include the fees when I ask about funds"): the ``advice`` component
rewards a preference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.services.extraction.normalise import measure_unit
from memories.services.extraction.vocabulary import GRAMMAR_WORDS
from memories.text import fold

_LEAD = r"^\W*(?:(?:and|but|so|e|ma|y|pero)\s+)?"
# A preposition may come first: "With whom…", "A chi…", "¿Con quién…?".
_PREPOSITION = r"(?:(?:with|to|for|from|by|of|con|a|di|da|per|de|para|por)\s+)?"
_PERSON = re.compile(rf"{_LEAD}{_PREPOSITION}(?:who|whom|whose|chi|quien|quienes)\b")
# A day asked for by name: "What is the deadline for…", "What deadline did I set…", "By
# when…", "Qual è la scadenza…", "¿Cuál es la fecha límite…?".
_DEADLINE = (
    r"\b(?:what|which)(?: is| was| are| were)?(?: the| my| our)? (?:deadline|due date)s?\b"
    r"|\bby when\b|\b(?:quale|qual e|quali)(?: sono)? (?:la |le )?scadenz[ae]\b"
    r"|\bcual(?:es)? (?:es |son )?(?:la |las |el |los )?(?:fechas? limites?|plazos?)\b"
)
_WHEN = re.compile(
    rf"{_DEADLINE}|{_LEAD}(?:since |until |till )?when\b"
    r"|\bwhat (?:date|day|year|month)\b|\bin (?:what|which) (?:year|month)\b"
    r"|\b(?:da |fino a )?quando\b|\bin (?:che|quale) (?:anno|mese|giorno|data)\b"
    r"|\b(?:desde |hasta )?cuando\b|\ben (?:que|cual) (?:ano|mes|dia|fecha)\b"
)
_AMOUNT = re.compile(
    r"\bhow much\b(?! (?:time|longer)\b)|\b(?:quanto|quanta)\b(?! tempo\b)"
    r"|\b(?:cuanto|cuanta)\b(?! tiempo\b)|\bwhat (?:amount|sum)\b"
)
# Advice or help asked of the assistant: "what would you suggest", "how should I", "can you
# help me", "any tips", "cosa mi consigli", "puoi aiutarmi", "¿qué me recomiendas?". Asked
# about a third person's advice ("What did Nate recommend?") it is a fact of the
# conversation, and matches nothing here.
_ADVICE = re.compile(
    r"\b(?:you|u)\b[^?.!]{0,30}\b(?:suggest|recommend|advise|propose)\b"
    r"|\b(?:can|could|would|will) you (?:please )?(?:help|show|explain|write|create)\b"
    r"|\b(?:how|what|which|where|when) (?:should|could|can) (?:i|we)\b|\bhelp me\b"
    r"|\bhow (?:do|would) (?:i|we|you)\b|\b(?:i|we) should\b|\bshould (?:i|we)\b"
    r"|\bany (?:tips|suggestions|recommendations|advice|ideas)\b"
    r"|\bwhat(?:'s| is) the best (?:way|approach)\b|\bwhat (?:approaches|strategies|options)\b"
    r"|\b(?:mi )?(?:consigli|suggerisci|raccomandi)\b|\bconsigliami\b"
    r"|\b(?:puoi|potresti) aiutarmi\b|\baiutami\b"
    r"|\b(?:come|cosa|quando|dove) (?:dovrei|potrei|posso)\b"
    r"|\b(?:me )?(?:recomiendas|sugieres|aconsejas)\b|\brecomiendame\b"
    r"|\b(?:puedes|podrias) ayudarme\b|\bayudame\b"
    r"|\b(?:como|que|cuando|donde) (?:deberia|podria|puedo)\b"
)
# A question after one value as it stands ("How much do I spend on groceries?", "When is
# my review?", "What is the API's response time?", "Quanto spendo…?", "¿Cuándo es…?"), not
# a list, a summary, how things went, several values put together (``_SEVERAL``) or
# advice: its newer version goes first (pick).
_VALUE = re.compile(
    rf"{_LEAD}(?:how (?:many|much|long|often|fast|far|big|large|old|high|low)\b|when\b"
    r"|what(?:'s| is| are| was| were)\b|(?:what|which) (?:\w+ ){1,3}"
    r"(?:did|do|does|is|are|was|were|have|has|am)\b"
    r"|quant[oaie]\b|quando\b|qual(?:e|i)?\b|che (?:\w+ ){1,3}(?:ho|hai|ha|e|sono)\b"
    r"|cuant[oa]s?\b|cuando\b|cual(?:es)?\b|que (?:\w+ ){1,3}(?:he|has|ha|es|son)\b)"
)
# Several values put together: a sum, a span, a difference ("How many problems have I
# completed in total across…", "How much total did I pay in fees for…", "How many days
# passed between…", "How much have I saved overall…"): every version counts, none is the
# one that stands. A total is nearly always a sum of what was said ("What is the total
# frame latency…" is the exception that reads one value).
_SEVERAL = re.compile(
    r"\b(?:total|across|between|overall|altogether|combin\w*|in all|difference|passed"
    r"|elapsed|in tutto|totale|complessiv\w*|differenza|entre|diferencia)\b"
    r"|\bhow (?:many|much) (?:\w+ ){0,2}(?:after|before|since)\b"
)
# What a question after one value asks the value of, named as ``stated_quantities`` names
# what a statement measures: the words after "how many" ("How many mechanical sketches
# have I completed?": sketches), money ("how much", a budget, a price), a duration ("how
# long"), a share, a score, or the day of what is planned ("When is my review?"; "When did
# I move?" asks of a past event, whose day a later statement does not change).
_COUNTED = re.compile(r"\b(?:how many|quant[ie]|cuant[oa]s)\s+((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)")
_MONEY = re.compile(
    r"\bhow much\b(?! (?:time|longer)\b)|\b(?:quanto|quanta|cuanto|cuanta)\b(?! (?:tempo|tiempo)\b)"
    r"|\b(?:budgets?|costs?|prices?|spend(?:ing)?|spent|rent|salary|fees?|income|savings|bill)\b"
    r"|\b(?:budget|costo|prezzo|spesa|affitto|stipendio|presupuesto|precio|gasto|alquiler|sueldo)\b"
)
_DURATION = re.compile(r"\bhow long\b|\bhow much time\b|\bquanto tempo\b|\bcuanto tiempo\b")
_SHARE = re.compile(r"%|\bper ?cent(?:age)?\b|\bpercentuale\b|\bporcentaje\b")
_SCORE_ASKED = re.compile(r"\b(?:score[sd]?|grades?|marks?|punteggio|voto|puntuacion|nota)\b")
_PLANNED_DAY = re.compile(
    rf"{_DEADLINE}|{_LEAD}when (?:is|are|will|am|do|does)\b|\bwhat (?:date|day) (?:is|are|will)\b"
    r"|\bquando (?:e|sono|sara|saranno)\b|\bcuando (?:es|son|sera|seran)\b"
)
MONEY_UNITS = frozenset(["$", "€", "£", "chf", "eur", "usd", "gbp", "dollar", "euro", "pound"])
DURATION_UNITS = frozenset(
    ["second", "sec", "minute", "min", "hour", "hr", "day", "week", "month", "year"]
)
# Any score out of a total ("4/5", "6/7": stated_quantities names it "/5", "/7").
SCORE = "/"
# Where what "how many" counts ends: "How many sketches have I…", "How many hours do you…".
_PRONOUNS = frozenset(
    ["i", "you", "he", "she", "we", "they", "me", "my", "your", "his", "her", "our", "their"]
)


def asked_measures(folded: str) -> frozenset[str]:
    """What a question after one value (folded) asks the value of, as the units
    ``stated_quantities`` reads in statements; empty when it cannot be told."""
    asked: set[str] = set()
    if counted := _COUNTED.search(folded):
        for word in counted.group(1).split():
            if word in GRAMMAR_WORDS or word in _PRONOUNS:
                break
            asked.add(measure_unit(word))
    if _DURATION.search(folded):
        asked |= DURATION_UNITS  # "How long do I spend…" asks a time, not money
    elif _MONEY.search(folded):
        asked |= MONEY_UNITS
    if _SHARE.search(folded):
        asked.add("%")
    if _SCORE_ASKED.search(folded):
        asked.add(SCORE)
    if _PLANNED_DAY.search(folded):
        asked.add("date")
    return frozenset(asked)


# What advice must honour: the memories of these categories answer it. A constraint was
# measured beside it and cost BEAM's multi-session questions (docs/decisions/0047).
_ADVICE_CATEGORIES = ("preference",)


@dataclass(frozen=True)
class Expected:
    """What a memory that answers holds: any of these entity types, a day it happened, or
    one of these categories."""

    tags: tuple[str, ...] = ()
    when: bool = False
    categories: tuple[str, ...] = ()
    # One value as it stands: among versions of it, the newer first.
    current: bool = False
    # What that value is of, when the question says (``asked_measures``): "sketche", "$"…
    measures: frozenset[str] = frozenset()


NOTHING = Expected()


def expected_answer(query: str) -> Expected:
    folded = fold(query)
    tags = tuple(
        tag for tag, pattern in (("person", _PERSON), ("amount", _AMOUNT)) if pattern.search(folded)
    )
    when = bool(_WHEN.search(folded))
    if when:
        tags += ("date",)
    categories = _ADVICE_CATEGORIES if _ADVICE.search(folded) else ()
    current = not categories and bool(_VALUE.search(folded)) and not _SEVERAL.search(folded)
    if not (tags or categories or current):
        return NOTHING
    measures = asked_measures(folded) if current else frozenset()
    return Expected(tags=tags, when=when, categories=categories, current=current, measures=measures)
