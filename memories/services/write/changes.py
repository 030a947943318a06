"""Word-level tests of whether a new statement changes what an older one said, for the
pairs that embed as nearly the same sentence: a quantity counted anew, a decision reversed
or replaced, detail added, and one more ("I also like…") rather than another instead."""

from __future__ import annotations

import re

from memories.services.extraction.normalise import COUNT_WORDS, NUMBER_WORDS, stated_numbers
from memories.services.extraction.vocabulary import (
    CHANNELS,
    DAYPARTS,
    FILLER_WORDS,
    FREQUENCIES,
    LANGUAGE,
    MARITAL_STATUSES,
    RISK_LEVELS,
)
from memories.text import fold

_NOT_CONTENT = FILLER_WORDS | NUMBER_WORDS.keys()


def _tokens(text: str) -> list[str]:
    return re.findall(r"\d+(?:[.,]\d+)*|[^\W\d_]+", fold(text))


def _stems(tokens: list[str]) -> set[str]:
    """The content words, on their first five letters ("figlio"/"figli")."""
    return {t[:5] for t in tokens if _is_word(t)}


def _quantities(text: str) -> tuple[dict[str, tuple], set[str]]:
    """Each number a statement states → the content words on either side of it ("own two
    bakeries", "invest £200 a month", "retire at 62"), and the statement's other content
    words (``_stems``)."""
    tokens = _tokens(text)
    numbers: dict[str, tuple] = {}
    for index, token in enumerate(tokens):
        if token[0].isdigit():
            number = token.replace(",", ".")
        elif token in COUNT_WORDS:
            number = str(NUMBER_WORDS[token])
        else:
            continue
        before = next((t[:5] for t in reversed(tokens[:index]) if _is_word(t)), None)
        after = next((t[:5] for t in tokens[index + 1 :] if _is_word(t)), None)
        numbers[number] = (before, after)
    return numbers, _stems(tokens)


def _is_word(token: str) -> bool:
    return len(token) > 2 and not token[0].isdigit() and token not in _NOT_CONTENT


def quantity_changed(old: str, new: str) -> bool:
    """The new statement gives another number for what the old one counted, in the same
    frame: "I own two bakeries in Belfast" → "I own three bakeries now". Not when each
    says something the other does not ("£200 a month for rent" / "… for the nursery")."""
    (old_numbers, old_words), (new_numbers, new_words) = _quantities(old), _quantities(new)
    gone = {old_numbers[n] for n in old_numbers.keys() - new_numbers.keys()}
    came = {new_numbers[n] for n in new_numbers.keys() - old_numbers.keys()}
    if not gone & came:
        return False
    return old_words <= new_words or new_words <= old_words


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", fold(text)) if len(w) > 2 and w not in FILLER_WORDS}


def says_nothing_more(old: str, new: str) -> bool:
    """The content words of the new statement are the old one's, but for one at most (a
    connective, an adjective; on their first five letters): "Since I prefer positive
    reinforcement" after "I prefer using positive reinforcement to motivate Scott", not "I
    prefer solving problems with exact fractions" after "I prefer solving problems with
    stepwise methods"."""
    return len(_stems(_tokens(new)) - _stems(_tokens(old))) <= 1


def adds_detail(old: str, new: str) -> bool:
    """The new statement says all of the old one and more: "buy a house" → "buy a house in
    Bristol with a garden". Embeddings score such pairs low (≈0.6), words do not."""
    old_words, new_words = _content_words(old), _content_words(new)
    if len(old_words) < 2 or len(new_words - old_words) < 2:
        return False
    return len(old_words & new_words) >= 0.8 * len(old_words)


# What a decision does with its object, en/it/es, on the first five letters as every
# comparison here ("vendere"/"vende"): a reversal keeps the object, changes the action.
_ACTIONS = frozenset(
    word[:5]
    for words in (
        "sell keep buy hold cancel stop continue close open accept reject refuse take leave "
        "move stay rent let maintain withdraw transfer join enrol enroll subscribe",
        "vendere tenere mantenere comprare cancellare annullare chiudere aprire accettare "
        "rifiutare prendere lasciare restare affittare ritirare trasferire aderire iscrivere "
        "sottoscrivere",
        "vender mantener conservar comprar cancelar anular cerrar abrir aceptar rechazar "
        "tomar dejar quedar alquilar retirar transferir adherir afiliar suscribir contratar",
    )
    for word in words.split()
)
# Said when one choice replaces another; and words that only say it happened late.
_INSTEAD = frozenset({"instead", "invece", "cambio", "lugar"})
_LATE = frozenset({"after", "all", "alla", "fine", "final", "dopotutto", "finalmente"})


def _decision_words(text: str) -> set[str]:
    # "opening" is "open": an English gerund or past compares as its verb.
    tokens = [re.sub(r"(?<=\w{3})(?:ing|ed)$", "", t) for t in re.findall(r"[^\W\d_]+", fold(text))]
    words = {t[:5] for t in tokens if _is_word(t)}
    return words - {w[:5] for w in _INSTEAD | _LATE}


def decision_changed(old: str, new: str) -> bool:
    """The later decision about the same thing decides otherwise: another action on it
    ("decided to sell the buy-to-let flat in Salford" → "decided to keep the Salford flat
    after all"), or, said as a replacement, another choice in its place ("take the Danske
    Bank loan for the shop" → "take the Ulster Bank loan instead"). Not two decisions
    about two things ("sell the car" / "sell the boat")."""
    old_words, new_words = _decision_words(old), _decision_words(new)
    old_actions, new_actions = old_words & _ACTIONS, new_words & _ACTIONS
    if old_actions and new_actions and old_actions != new_actions:
        old_rest, new_rest = old_words - _ACTIONS, new_words - _ACTIONS
        named = min(len(old_rest), len(new_rest))  # the decision word and the object, at least
        return named >= 2 and (old_rest <= new_rest or new_rest <= old_rest)
    if set(re.findall(r"\w+", fold(new))) & _INSTEAD:
        shared = old_words & new_words
        return len(shared) >= 2 and len(shared) >= 0.6 * len(new_words)
    return False


# Said when a statement adds to what was said, not replaces it.
_ALSO = frozenset(
    "also too well additionally besides anche pure inoltre altresi tambien ademas asimismo".split()  # noqa: SIM905
)
_DENIALS = frozenset("not no never against non mai contro nunca contra".split())  # noqa: SIM905


def adds_to(text: str) -> bool:
    words = re.findall(r"\w+", fold(text))
    return bool(set(words) & _ALSO) or "as well" in " ".join(words)


def same_decision(old: str, new: str) -> bool:
    """The same action on the same thing, whatever the polarity ("decided to sell the house
    in Bristol" / "decided not to sell the house in Bristol after all")."""
    denials = {w[:5] for w in _DENIALS}
    old_words, new_words = _decision_words(old) - denials, _decision_words(new) - denials
    old_actions, new_actions = old_words & _ACTIONS, new_words & _ACTIONS
    if not old_actions or not old_actions & new_actions:
        return False
    old_rest, new_rest = old_words - _ACTIONS, new_words - _ACTIONS
    shared = old_rest & new_rest
    return len(shared) >= 2 and len(shared) >= 0.6 * min(len(old_rest), len(new_rest))


# Words that say a statement changes what was said before ("from now on", "we moved", "ya no",
# "adesso", "al final"), en / it / es, folded.
_CHANGE = re.compile(
    r"\b(?:now|no longer|not any ?more|anymore|from now on|going forward|instead|moved|changed"
    r"|switched|new|finally|in the end|after all|any more|these days|actually"
    r"|ora|adesso|d'ora in poi|da ora in poi|d'ora in avanti|non piu|invece|alla fine|ormai"
    r"|nuov[oaie]|cambiat[oaie]|trasferit[oaie]|spostat[oaie]|finalmente|oramai"
    r"|ahora|ya|ya no|a partir de ahora|de ahora en adelante|en adelante|en vez|al final"
    r"|nuev[oa]s?|cambiad[oa]s?|mudad[oa]s?|finalmente|mejor)\b"
)
# The canonical values memoryhub's vocabularies name: a channel, a risk level, a frequency,
# a language, a marital status, a part of the day.
_VALUES = [
    (re.compile(rf"\b(?:{pattern})\b"), value)
    for table in (CHANNELS, RISK_LEVELS, FREQUENCIES, MARITAL_STATUSES, DAYPARTS)
    for pattern, value in table.items()
]
_NAMED = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-ZÀ-Þ])[\w'-]{2,}")


def values_of(text: str) -> frozenset[str]:
    """What a statement gives a value as: the vocabularies' canonical values, its numbers
    (``stated_numbers``) and the names it says (a town, a company: capitalised words not
    opening a sentence), folded."""
    folded = fold(text)
    found = {value for pattern, value in _VALUES if pattern.search(folded)}
    found |= {f"#{n}" for n in stated_numbers(text)}
    found |= {f"@{fold(w)}" for w in _NAMED.findall(text.strip())}
    if language := LANGUAGE.search(folded):
        found.add(f"lang:{language.group(1)[:4]}")
    return frozenset(found)


def value_changed(old: str, new: str) -> bool:
    """The new statement gives what the old one was about another value: it says so ("now",
    "d'ora in poi", "ya"), or it names a value the old one did not ("Bussolengo" after
    "Borgo Trento", "dynamic" after "moderate", 250 after 200). "My marriage is the best
    thing that happened to me" after "I'm married" is the same value said again."""
    if _CHANGE.search(fold(new)):
        return True
    return bool(values_of(new) - values_of(old))
