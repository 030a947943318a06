"""What one clause says: the cue it matches (``classify``) and, for contradiction
detection, the attribute and canonical value it states (``attribute_of``); and the parts of
a sentence that ends in a question, and which of them ask (``question_parts``). Values are
folded and canonical across languages; see ``heuristic``'s docstring for the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.services.extraction import patterns as cues
from memories.services.extraction import vocabulary
from memories.services.extraction.normalise import (
    NUMBER_WORDS,
    WEEKDAYS,
    match_form,
    spot_entities,
    words,
)
from memories.services.extraction.patterns import words_of


@dataclass(frozen=True)
class Match:
    rule: cues.Rule | None  # None for procedures and fallbacks
    category: str  # a rule category, or procedural / event / request
    obj: str  # folded object phrase
    negated: bool = False
    role: str = ""


# --- Canonical values -----------------------------------------------------------------------
_Table = tuple[tuple[re.Pattern[str], str], ...]


def _table(pairs: dict[str, str]) -> _Table:
    return tuple((re.compile(rf"\b(?:{regex})\b"), value) for regex, value in pairs.items())


_FREQUENCIES = _table(vocabulary.FREQUENCIES)
_DAYPARTS = _table(vocabulary.DAYPARTS)
_CHANNELS = _table(vocabulary.CHANNELS)
_RISK = _table(vocabulary.RISK_LEVELS)
_MARITAL = _table(vocabulary.MARITAL_STATUSES)
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")s?\b")
_HEADS = {word: head for head, group in vocabulary.HEAD_NOUNS.items() for word in words_of(group)}
_FILLERS = words_of(vocabulary.FILLERS)
_BREAKS = words_of(vocabulary.PHRASE_BREAKS)
_EN_CLAUSE = words_of("i you we he she they it is are was were do does don't can't won't")
STOPWORDS = _FILLERS | words_of(vocabulary.STOPWORDS)
_NOT_NAMES = words_of(vocabulary.NOT_NAMES)
REACTIONS = {
    f"preference:{noun}"
    for noun in words_of("idea ideas suggestion proposal one idee suggerimento proposta sugerencia")
}
KNOWN_ATTRIBUTES = words_of(
    "language report_frequency meeting_time contact_channel risk_profile marital_status "
    "email_address phone_number residence employer occupation children"
)


def _first(table: _Table, text: str) -> str:
    """The value whose pattern occurs first in ``text``: the earliest mention wins."""
    hits = [(m.start(), value) for pattern, value in table if (m := pattern.search(text))]
    return min(hits)[1] if hits else ""


# After these, what is named is what the client chooses ("Mornings don't work anymore, I
# prefer afternoons"): a value is looked for there first.
_CHOOSES = re.compile(
    r"\b(?:prefer\w*|rather|instead|preferisc\w*|preferire\w*|prefier\w*|preferir\w*)\b"
)
# Statements about reaching the client: the channel says more than the time of day.
CONTACT = re.compile(
    r"\b(?:be\s)?contact(?:ed)?\b|\b(?:call|ring|reach|text|email|write to|message)\s(?:me|us)\b"
    r"|\b(?:contattat\w*|contattarmi|contattarci|chiamarmi|scrivermi|essere contattat\w*"
    r"|contacten|contactarme|llamen|llamarme|escriban|escribirme)\b"
    # asked in the imperative, familiar or polite: "mi chiami", "scrivimi", "llámeme"
    r"|\b(?:mi|ci) (?:chiami|richiami|scriva|contatti)\b|\b(?:chiamami|chiamaci|chiamateci"
    r"|scrivimi|scriveteci|contattami|llamame|llameme|llamenme|llamadme|llamanos|llamenos"
    r"|escribame|escribeme|escribanme|contacteme|contactame)\b"
)


def service_attribute(folded: str) -> tuple[str, str]:
    """How, when and in which language to serve the client: in what follows a "prefer"
    when that names one, else in the whole clause."""
    chosen = _CHOOSES.search(folded)
    if chosen and (found := _service_value(folded[chosen.end() :]))[0]:
        return found
    return _service_value(folded)


def _service_value(folded: str) -> tuple[str, str]:
    if language := vocabulary.LANGUAGE.search(folded):
        return "language", vocabulary.LANGUAGE_CODES[language.group(1)[:4]]
    if vocabulary.REPORTS.search(folded) and (frequency := _first(_FREQUENCIES, folded)):
        return "report_frequency", frequency
    channel = _first(_CHANNELS, folded)
    if channel and CONTACT.search(folded):
        return "contact_channel", channel
    weekday = _WEEKDAY.search(folded)
    day = _WEEKDAY_NAMES[WEEKDAYS[weekday.group(1)]] if weekday else ""
    if when := " ".join(part for part in (day, _first(_DAYPARTS, folded)) if part):
        return "meeting_time", when
    if channel:
        return "contact_channel", channel
    return "", ""


def _risk(folded: str) -> str:
    level = _first(_RISK, folded)
    if level and (vocabulary.RISK_CONTEXT.search(folded) or vocabulary.RISK_ONLY.search(folded)):
        return level
    return ""


def _names(original: str) -> list[str]:
    """Runs of capitalised words, without possessives, titles and conjunctions."""
    runs: list[str] = []
    current: list[str] = []
    for token in re.findall(r"[^\W\d_][\w'\u2019-]*|\S", original):
        if token[:1].isupper() and match_form(token) not in _NOT_NAMES:
            current.append(token)
        elif current:
            runs.append(" ".join(current))
            current = []
    return [*runs, " ".join(current)] if current else runs


def _breaks(token: str, language: str) -> bool:
    """Where a noun phrase ends: a preposition or conjunction; in English also a pronoun,
    an auxiliary or an adverb ("my accountant completely")."""
    if language == "en" and (token in _EN_CLAUSE or (token.endswith("ly") and len(token) > 4)):
        return True
    return token in _BREAKS


_ELISION = re.compile(r"^(?:l|un|dell|all|nell|dall|sull|d)'")


def _phrase(obj: str, language: str, verb_first: bool) -> tuple[str, str]:
    """(value, head) of an object: 'any index funds in…' → ('index funds', 'funds')."""
    # A comma ends the phrase unless adjectives go on after it ("long, detailed answers").
    first_clause = re.split(
        r"[;:.!?()]|,\s(?=(?:and|but|or|so|not|please|i|we|you|it|e|ma|o|y|pero)\b)|,$", obj
    )[0].replace(",", " ")
    tokens = [_ELISION.sub("", token) for token in words(first_clause)]  # l'oro → oro
    if tokens and _unnamed(tokens):
        return "", ""
    infinitive, n = re.compile(cues.INFINITIVE[language]), len(tokens)

    def skip(j: int, vocabulary: frozenset[str] = _FILLERS) -> int:
        while j < n and tokens[j] in vocabulary:
            j += 1
        return j

    verb_first = verb_first or tokens[:1] == ["to"]
    i = skip(0)
    gerund = language == "en" and i < n and tokens[i].endswith("ing") and len(tokens[i]) > 4
    if i < n and (verb_first or gerund or infinitive.fullmatch(tokens[i])):
        verb, i = i, skip(i + 1)  # "to *sell* the house", "invertir en…": the noun follows
        if i < n and language == "en" and tokens[i].endswith("ed"):
            i = skip(i + 1)  # "to be contacted by…"
        i = verb if i >= n else i
    i = skip(i, _BREAKS)
    chunk: list[str] = []
    while i < n and len(chunk) < 4 and not (chunk and _breaks(tokens[i], language)):
        chunk.append(tokens[i])
        i += 1
    if not chunk:
        return "", ""
    head = chunk[-1] if language == "en" else chunk[0]  # English nouns end the phrase
    return " ".join(chunk), _HEADS.get(head, head)


# What stands for a thing without naming it: "I prefer it due to its flexibility", "I like
# this a lot", "preferisco questo perché costa meno". The thing is in an earlier sentence, so
# the statement has no attribute of its own: keyed by the word after the pronoun ("due",
# "lot", "costa"), a later "I prefer it for…" about anything else would supersede it.
_PRONOUNS = words_of("it them")
_DEMONSTRATIVES = words_of(
    "this that these those questo questa questi queste quello quella quelli quelle cio "
    "esto eso esta esa este ese estos esos estas esas ello"
)


def _unnamed(tokens: list[str]) -> bool:
    """The object is a pronoun: ``it`` or ``them``, or a demonstrative that no noun follows."""
    first, following = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if first in _PRONOUNS:
        return True
    return first in _DEMONSTRATIVES and (not following or following in _BREAKS | _FILLERS)


def children_count(folded: str) -> str:
    """How many children a statement says the client has ("" when it does not say)."""
    found = vocabulary.CHILDREN.search(folded)
    if not found:
        return ""
    if found["none_en"] or found["none_it"] or found["none_es"]:
        return "0"
    said = found["n"] or found["n_it"] or found["n_es"]
    if said == "no":
        return "0"
    if said.isdigit():
        return said
    return str(NUMBER_WORDS[said]) if said in NUMBER_WORDS else ""


def _fact_attribute(match: Match, folded: str, original: str, language: str) -> tuple[str, str]:
    if count := children_count(folded):
        return "children", count
    if status := _first(_MARITAL, folded):
        return "marital_status", status
    for entity in spot_entities(original):
        if entity["type"] == "email":
            return "email_address", entity["text"].casefold()
        if entity["type"] == "phone":
            return "phone_number", re.sub(r"[^\d+]", "", entity["text"])
    hint = match.rule.hint if match.rule else ""
    if hint in ("residence", "employer"):
        names = [name for name in _names(original) if match_form(name) in match.obj]
        value = match_form(names[0]) if names else _phrase(match.obj, language, False)[0]
        return (hint, value) if value else ("", "")
    if hint == "occupation" and (value := _phrase(match.obj, language, False)[0]):
        return hint, value
    return "", ""


def _person_attribute(match: Match, original: str, language: str) -> tuple[str, str]:
    """A statement about one of the client's people, named. A fact about that person is
    keyed by their name ("my fiancé Marcus works at Airbus" → ``employer:marcus``), so that
    a later one about the same person supersedes it; otherwise, for roles one person holds,
    who the person is to the client (``relationship:husband`` = marcus)."""
    names = _names(original)
    if not names:
        return "", ""
    name = match_form(names[0])
    said = match.obj.replace(name, " ", 1)  # what the statement says of them
    fact = classify(said, language)
    if fact and fact.rule and fact.rule.hint in ("residence", "employer", "occupation"):
        attribute, value = _fact_attribute(fact, said, original, language)
        return (f"{attribute}:{name}", value) if attribute else ("", "")
    if role := vocabulary.ONE_PERSON_ROLES.get(match.role):
        return f"relationship:{role}", name
    return "", ""


# A goal to put money in something is a stance towards it ("I want to invest in crypto"), as
# "I no longer want crypto" is: both are keyed ``preference:<head noun>``.
_STANCE = re.compile(r"\b(?:invest\w*|put money|investire|investir\w*|invertir)\s(?:in|en)\b")


def attribute_of(match: Match, folded: str, original: str, language: str) -> tuple[str, str]:
    category = match.category
    if category in ("preference", "decision") and (found := service_attribute(folded))[0]:
        return found
    if category in ("preference", "decision", "fact") and (level := _risk(folded)):
        return "risk_profile", level
    if match.rule and match.rule.unkeyed:
        return "", ""  # a standing instruction, a priority: its scope is in its words
    if category == "fact":
        return _fact_attribute(match, folded, original, language)
    if category == "relationship":
        return _person_attribute(match, original, language)
    stance = category == "goal" and bool(_STANCE.search(folded))
    if category == "preference" or stance:
        verb_first = stance or bool(match.rule and match.rule.verb_first)
        value, head = _phrase(match.obj, language, verb_first)
        if head:
            return f"preference:{head}", value
    return "", ""


# --- Classification -------------------------------------------------------------------------
def classify(folded: str, language: str) -> Match | None:
    """The first cue that matches, in the utterance's language first, then in the others."""
    for lang in (language, *(other for other in cues.RULES if other != language)):
        if any(pattern.search(folded) for pattern in cues.PROCEDURES[lang]):
            return Match(None, "procedural", folded)
        for rule in cues.RULES[lang]:
            found = rule.pattern.search(folded)
            if not found:
                continue
            groups = found.groupdict()
            obj = groups["obj"] if groups.get("obj") is not None else folded[found.end() :]
            if rule.object_before:
                obj = folded[: found.start()].strip() or obj
            obj = obj.strip()
            lead = next((w for w in words(obj) if w not in _FILLERS), "")
            if rule.not_request and lead in cues.REQUEST_VERBS:
                return Match(rule, "request", obj)  # asks for something, tells nothing
            if rule.noun_object and (not lead or re.fullmatch(cues.INFINITIVE[lang], lead)):
                continue
            if rule.needs_object and not lead:
                continue
            negated = rule.negated or (
                rule.category in ("decision", "goal", "preference")
                and bool(cues.NEGATION_START.match(obj))  # "decided not to", "di non vendere"
            )
            return Match(rule, rule.category, obj, negated, groups.get("role") or "")
    return None


def question_parts(sentence: str) -> list[tuple[str, int, bool]]:
    """(part, where it starts, whether it asks) for each part of a sentence that ends in a
    question (``cues.QUESTION_PARTS``); the last part always asks."""
    # A part opened by "¿" starts at it.
    starts = [
        0,
        *(
            f.start() if f.group() == "¿" else f.end()
            for f in cues.QUESTION_PARTS.finditer(sentence)
        ),
    ]
    texts = cues.QUESTION_PARTS.split(sentence)
    last = len(texts) - 1
    return [
        (text, start, i == last or _asks(text))
        for i, (text, start) in enumerate(zip(texts, starts, strict=True))
    ]


def _asks(part: str) -> bool:
    return "?" in part or "¿" in part or cues.QUESTION_START.match(match_form(part)) is not None


def strip_clause(text: str) -> str:
    """The clause without greetings and fillers before it, nor separators after it."""
    stripped = cues.DISCOURSE.sub("", text.strip()) or text
    return stripped.strip().rstrip(",;:\u2014\u2013- ").strip()


def told_in_question(sentence: str, language: str, *, own: bool = True) -> list[str]:
    """What a sentence that ends in a question tells: the parts before it that do not ask
    ("I moved last month, can you update my address?"), and, when the speaker asks of
    their own affairs (``own``: not an advisor asking the client), the question itself
    (from its first asking part) when it states a preference: "how can I use my preference
    for digital tools to plan the meeting?" is still said; "how would you like to be
    contacted?" asked by the advisor is not."""
    parts = question_parts(sentence)
    told = [part for part, _, asks in parts if part.strip() and not asks]
    if not own:
        return told
    question = sentence[next(start for _, start, asks in parts if asks) :].strip()
    match = classify(match_form(strip_clause(question)), language)
    if match is not None and match.category == "preference":
        told.append(question)
    return told
