"""Event normalisation: language, sentences and entities (en, it, es).

Zero-cost heuristics (standard library and ``re``) that run on every event before any model
does. Patterns that only need to recognise words run on *folded* text (``text.fold``: lower
case, no accents), because chat writes ``venerdi`` as often as ``venerdì``; patterns where
capitals carry meaning (names, organisations) run on the original text. Quantifiers are
bounded or anchored on a literal so that hostile input stays linear.

Time expressions are resolved in ``time_expressions``, with the vocabularies shared here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memories.services.extraction.vocabulary import GRAMMAR_WORDS
from memories.text import fold

# Typographic quotes as escapes: a curly apostrophe in source is easily mistaken for "'".
_APOSTROPHES = "\u2019\u2018`\u00b4"
_QUOTES = str.maketrans(
    {**dict.fromkeys(_APOSTROPHES, "'"), **dict.fromkeys("\u201c\u201d«»", '"')}
)
_CLOSERS = "\"')]\u201d\u2019»"


def _vocabulary(text: str) -> list[str]:
    return text.split()


def match_form(text: str) -> str:
    """Folded text with plain quotes and single spaces: the form the pattern tables expect."""
    return re.sub(r"\s+", " ", fold(text).translate(_QUOTES)).strip()


def words(folded: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", folded)


# --- Language -------------------------------------------------------------------------------
# Function words and chat formulas. A word listed for two languages says nothing, so only the
# words exclusive to one language count.
_LANGUAGE_WORDS = {
    "en": """the and is are i you my we to of in it that this with for have be was not don't
        i'm i'd i've please would want prefer thanks thank hi hello what how will can our your
        me at on by from next week tomorrow today always never like no but so they he she""",
    "it": """il lo gli i e di che non sono mi per della del dello con ho abbiamo mio mia miei
        vorrei grazie buongiorno buonasera ciao anche piu perche come questo questa io noi
        voglio preferisco settimana domani oggi sempre molto ma nel nella alla al dei delle
        degli essere fare entro tra fra mille prossima ogni figlio figlia moglie marito la le
        un una in no si ci lavoro sto mese anno presso da anni due tre cinque dieci giorni
        siamo hanno quello dal dalla sul sulla poi dopo allora ancora gia qui deciso lei suo
        sua loro vorremmo piace figli nipoti abito ed""",
    "es": """el los las y es que de del en por para tengo quiero prefiero gracias hola muy
        pero esta este estoy soy hemos mis nos se su semana hoy manana siempre mucho cuando
        donde ya tambien mas yo usted vale hijo hija esposa trabajo la le un una con mi me al
        como no lo mes ano tal desde anos dos tres cinco diez dias somos han hay pues luego
        despues antes aqui ese esa eso ella ellos nuestro nuestra gusta hijos nietos ahora
        todo todos nada algo bien bueno vez cada hace tiene puedo quiere sus""",
}
_WORD_SETS = {lang: set(_vocabulary(ws)) for lang, ws in _LANGUAGE_WORDS.items()}
_EXCLUSIVE = {
    lang: ws - set().union(*(other for name, other in _WORD_SETS.items() if name != lang))
    for lang, ws in _WORD_SETS.items()
}
_LANGUAGE_SHAPES = {
    "es": re.compile(r"[ñ¿¡]|ción\b|ciones\b|\w[áéíóú]\w"),
    "it": re.compile(r"\w[àèìòù](?!\w)|zion[ei]\b|\b(?:l|dell|all|dall|nell|sull|quest|un)'\w"),
}


def detect_language(text: str) -> str:
    """'en', 'it' or 'es' by counting exclusive function words and spelling marks."""
    lowered = text[:20_000].lower().translate(_QUOTES)
    tokens = words(match_form(lowered))
    scores = {lang: sum(t in _EXCLUSIVE[lang] for t in tokens) for lang in _EXCLUSIVE}
    for lang, shape in _LANGUAGE_SHAPES.items():
        scores[lang] += 2 * len(shape.findall(lowered))
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    return best if scores[best] > 0 else "en"


# --- Sentences ------------------------------------------------------------------------------
# A period after these never ends a sentence (titles, Latin and Romance abbreviations).
_ABBREVIATIONS = frozenset(
    _vocabulary(
        "e.g i.e mr mrs ms dr prof sr sra srta sig sigg sig.ra dott dott.ssa ing avv p.es "
        "ad.es per.es vs approx aprox cf ca st tel ref art pag vol fig jr"
    )
)
# A period after these ends a sentence only if a capital follows ("I work at Acme Inc. My…").
_SOFT_ABBREVIATIONS = frozenset(
    _vocabulary("etc ecc inc ltd co corp no n nr a.m p.m s.p.a s.r.l s.a s.l")
)
_BOUNDARY = re.compile(rf"[.!?…;]+[{re.escape(_CLOSERS)}]*(?=\s|$)")


def split_sentences(text: str) -> list[str]:
    """Sentences, one per line at least; abbreviations, initials and decimals do not split."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        for boundary in _BOUNDARY.finditer(line):
            before, after = line[start : boundary.start()], line[boundary.end() :]
            if boundary.group().rstrip(_CLOSERS) == "." and not _ends_sentence(before, after):
                continue
            if piece := line[start : boundary.end()].strip():
                sentences.append(piece)
            start = boundary.end()
        if piece := line[start:].strip():
            sentences.append(piece)
    return sentences


def _ends_sentence(before: str, after: str) -> bool:
    tokens = before.split()[-2:] or [""]
    last = tokens[-1].lstrip("(\"'")
    word, pair = fold(last), fold(".".join(tokens))
    if word in _ABBREVIATIONS or pair in _ABBREVIATIONS:
        return False
    if re.fullmatch(r"[A-ZÀ-Þ]", last) and last != "I":  # an initial: "J. Smith"
        return False
    following = after.lstrip(" \"'¿¡(" + _APOSTROPHES + "\u201c")[:1]
    return word not in _SOFT_ABBREVIATIONS or following.isupper()


# --- Shared vocabularies --------------------------------------------------------------------
def _numbered(names: str, start: int = 0) -> dict[str, int]:
    return {name: index for index, name in enumerate(_vocabulary(names), start)}


MONTHS = {
    **_numbered(
        "january february march april may june july august september october november december", 1
    ),
    **_numbered(
        "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
        "novembre dicembre",
        1,
    ),
    **_numbered(
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
        1,
    ),
    "setiembre": 9,
}
WEEKDAYS = {
    **_numbered("monday tuesday wednesday thursday friday saturday sunday"),
    **_numbered("lunedi martedi mercoledi giovedi venerdi sabato domenica"),
    **_numbered("lunes martes miercoles jueves viernes sabado domingo"),
}
_NUMBER_NAMES = (
    "zero cero|a an one un uno una un'|two due dos|three tre tres|four quattro cuatro|"
    "five cinque cinco|six sei seis|seven sette siete|eight otto ocho|nine nove nueve|"
    "ten dieci diez|eleven undici once|twelve dodici doce|thirteen tredici trece|"
    "fourteen quattordici catorce|fifteen quindici quince|sixteen sedici dieciseis|"
    "seventeen diciassette diecisiete|eighteen diciotto dieciocho|nineteen diciannove "
    "diecinueve|twenty venti veinte"
)
# Number words, en/it/es (one table for every reader of quantities), to their value.
NUMBER_WORDS = {
    **{word: n for n, names in enumerate(_NUMBER_NAMES.split("|")) for word in names.split()},
    **dict.fromkeys(["a couple of", "un paio di", "un par de"], 2),
    **dict.fromkeys(["thirty", "trenta", "treinta"], 30),
}
# Of those, the ones that are also articles ("a car", "un figlio"): one, but rarely a count.
ARTICLES = frozenset(["a", "an", "un", "uno", "una", "un'"])
# Single words that state a count whatever their context.
COUNT_WORDS = frozenset(w for w in NUMBER_WORDS if " " not in w and w not in ARTICLES)


def alternation(names) -> str:
    """A regex alternation, longest first so that a prefix never shadows a longer word."""
    return "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))


NUMBER = rf"(?:\d{{1,3}}|{alternation(NUMBER_WORDS)})"
_QUANTITY = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+")


# A fenced listing (code, configuration or data pasted into a message), closed or running to
# the end of the text.
LISTING = re.compile(r"```.*?(?:```|$)", re.S)


def prose(text: str) -> str:
    """The text without its fenced listings."""
    return LISTING.sub(" ", text)


def split_listings(text: str) -> Iterator[tuple[str, bool]]:
    """(part, is a listing) pairs of the text, in order."""
    start = 0
    for listing in LISTING.finditer(text):
        if listing.start() > start:
            yield text[start : listing.start()], False
        yield listing.group(), True
        start = listing.end()
    if start < len(text):
        yield text[start:], False


def stated_numbers(text: str) -> set[str]:
    """The quantities a statement states, digits or words ("two" and "2" are the same)."""
    found = set()
    for token in _QUANTITY.findall(fold(text)):
        if token[0].isdigit():
            found.add(token.replace(",", "."))
        elif token in COUNT_WORDS:
            found.add(str(NUMBER_WORDS[token]))
    return found


def stated_quantities(text: str) -> dict[str, frozenset[str]]:
    """What a statement measures, each with the values it states: the word a number counts
    ("3 sketches", "180ms", "10 hours"), a currency ("$250"), a share ("20%"), a score out
    of a total ("4/5"), a day ("March 23", named "date": "3 days" counts days). Two
    statements that give one of these another value speak of one quantity that changed:
    "I've completed 3 sketches" → "I've completed 5 sketches"; "180ms under 20 concurrent
    requests" → "120ms under 20 concurrent requests". A word is singular (a final s
    dropped); grammar is never a measure ("by", "to", "di")."""
    folded = fold(text)
    found: dict[str, set[str]] = {}
    for day in _DAY.findall(folded):
        found.setdefault("date", set()).add(day)
    for value, out_of in _SCORE.findall(folded):
        found.setdefault(f"/{out_of}", set()).add(value)
    for currency, amount, value, unit in _MEASURE.findall(_SCORE.sub(" ", _DAY.sub(" ", folded))):
        if currency:
            found.setdefault(currency, set()).add(amount.replace(",", ""))
        elif unit not in GRAMMAR_WORDS and unit not in MONTHS:
            found.setdefault(measure_unit(unit), set()).add(value.replace(",", ""))
    return {unit: frozenset(values) for unit, values in found.items()}


def measure_unit(word: str) -> str:
    """The name ``stated_quantities`` gives what a word counts: folded, a final s dropped
    ("sketches" and "sketche", "hours" and "hour"), so that a question's word and a
    statement's meet."""
    word = fold(word)
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


_MONTH = alternation(MONTHS)

_NUM = r"\d{1,15}(?:[.,'\u2019]\d{3}){0,5}(?:[.,]\d{1,4})?"
_SCALE = (
    r"(?:millions?|millones|mill[oó]n|milion[ei]|miliard[oi]|billions?|thousand|mila|mln|mil"
    r"|bn|mn|k|m)"
)
_CURRENCY = r"(?:€|\$|£|CHF|EUR|USD|GBP)"
_CURRENCY_WORD = (
    r"(?:euros?|dollars?|dollari|d[oó]lares|pounds?|sterline|libras|francs|franchi|francos)"
)
AMOUNT = (
    rf"(?:{_CURRENCY}\s?{_NUM}(?:\s?{_SCALE}\b)?"
    rf"|\b{_NUM}\s?{_SCALE}\b(?:\s(?:de\s|di\s)?{_CURRENCY_WORD}\b|\s?{_CURRENCY})?"
    rf"|\b{_NUM}\s?(?:{_CURRENCY}|{_CURRENCY_WORD}\b))"
)

# A day as said, for stated_quantities: "march 23", "23 march" (folded).
_DAY = re.compile(rf"\b(?:{_MONTH})\s\d{{1,2}}\b|\b\d{{1,2}}\s(?:{_MONTH})\b")
_SCORE = re.compile(r"\b(\d{1,4})\s?/\s?(\d{1,4})\b")
_MEASURE = re.compile(rf"({_CURRENCY})\s?({_NUM})|\b({_NUM})\s?(%|[^\W\d_]{{2,}})", re.I)

# --- Entities -------------------------------------------------------------------------------
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}")
_PHONE = re.compile(r"(?<![\w€$£.,/-])(?:\+|00)?\d[\d ().-]{6,18}\d(?![\w%€/-])")
_AMOUNT = re.compile(AMOUNT, re.IGNORECASE)
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s(?:of\s|de\s)?(?:{_MONTH})\b(?:,?\s(?:de\s)?\d{{4}}\b)?"
    rf"|\b(?:{_MONTH})\s\d{{1,2}}(?:st|nd|rd|th)?\b(?:,\s\d{{4}}\b)?"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|luned[iì]|marted[iì]"
    r"|mercoled[iì]|gioved[iì]|venerd[iì]|sabato|domenica|lunes|martes|mi[eé]rcoles|jueves"
    r"|viernes|s[aá]bado|domingo)\b",
    re.IGNORECASE,
)
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'\u2019-]{0,40}"
_ORGANISATION = re.compile(
    r"\b(?:Banca|Banco|Banque|Bank of|Cassa di Risparmio(?: di)?|Caja|Cr[ée]dit)"
    rf"(?:\s(?:di|de|del|della|of))?(?:\s{_CAP}){{1,3}}"
    rf"|\b(?:{_CAP}\s(?:&\s)?){{1,3}}"
    r"(?:Inc|Ltd|LLC|LLP|plc|PLC|S\.p\.A\.|SpA|S\.r\.l\.|Srl|S\.A\.|SA|S\.L\.|SL|AG|GmbH|NV|BV"
    r"|Co\.|Corp|Group|Holdings?|Bank|Capital|Partners|Insurance|Assicurazioni|Seguros|Trust)"
    r"(?!\w)"
)
_WORKPLACE = re.compile(
    r"\b(?i:work(?:s|ing)?\s(?:at|for)|lavor[oa]\s(?:presso|per|da)|trabaj[oa]\s(?:en|para)"
    rf"(?:\s(?:el|la))?)\s({_CAP}(?:\s{_CAP}){{0,3}})"
)
_NAME_RUN = re.compile(rf"{_CAP}(?:\s(?:(?:de|di|da|del|van|von)\s)?{_CAP}){{0,3}}")
_NAME_CUE = re.compile(
    r"\b(?:my|our|mio|mia|mi|nuestr[oa])\s(?:wife|husband|son|daughter|brother|sister|partner"
    r"|accountant|lawyer|figlio|figlia|moglie|marito|fratello|sorella|commercialista|avvocato"
    r"|hijo|hija|esposa|esposo|marido|hermano|hermana|contador|abogado)\s$",
    re.IGNORECASE,
)
_IS_MY = re.compile(r"\s+(?:is|è|es)\s+(?:my|il mio|la mia|mi)\b", re.IGNORECASE)
_NOT_NAMES = (
    frozenset(
        _vocabulary(
            "i i'm i'd i've i'll ok okay hi hello thanks please dear mr mrs ms dr dott sig sr sra "
            "english italian spanish french german inglese italiano spagnolo ingles espanol swiss "
            "american british european chinese whatsapp zoom teams skype"
        )
    )
    | set(MONTHS)
    | set(WEEKDAYS)
)
_PLACE_BEFORE = re.compile(r"\b(?:in|at|to|from|near|a|ad|da|en|desde|vicino a|cerca de)\s$", re.I)


def _at_sentence_start(before: str) -> bool:
    """Whether a word preceded by ``before`` (up to 40 characters) opens a sentence."""
    stripped = before.rstrip(" \t\"'¿¡(\u201c" + _APOSTROPHES)
    return (not stripped and len(before) < 40) or stripped[-1:] in (".", "!", "?", ":", ";", "\n")


def spot_entities(text: str) -> list[dict]:
    """Typed spans in text order: person, organisation, amount, date, email, phone."""
    found: list[tuple[int, int, str]] = []

    def add(start: int, end: int, kind: str) -> None:
        # Earlier, more specific kinds win an overlap: an email is not also a person.
        if not any(start < e and s < end for s, e, _ in found):
            found.append((start, end, kind))

    for kind, pattern in (("email", _EMAIL), ("date", _DATE), ("amount", _AMOUNT)):
        for match in pattern.finditer(text):
            add(match.start(), match.end(), kind)
    for match in _PHONE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 8 <= len(digits) <= 15 and not re.fullmatch(r"\d{1,3}(?:\.\d{3})+", match.group()):
            add(match.start(), match.end(), "phone")
    for match in _ORGANISATION.finditer(text):
        add(match.start(), match.end(), "organisation")
    for match in _WORKPLACE.finditer(text):
        add(match.start(1), match.end(1), "organisation")
    for match in _NAME_RUN.finditer(text):
        start, tokens = match.start(), match.group().split()
        before = text[max(0, start - 40) : start]
        # A capital opening a sentence is grammar, not a name, unless "Anna is my wife".
        opening = _at_sentence_start(before) and not _NAME_CUE.search(before)
        if opening and not _IS_MY.match(text, match.end()):
            start, tokens = start + len(tokens[0]) + 1, tokens[1:]
        while tokens and fold(tokens[0]) in _NOT_NAMES:
            start, tokens = start + len(tokens[0]) + 1, tokens[1:]
        if not tokens or sum(ch.isupper() for ch in tokens[0]) > 1:  # empty, or an acronym
            continue
        if not _PLACE_BEFORE.search(text[max(0, start - 12) : start]):
            add(start, start + len(" ".join(tokens)), "person")
    found.sort()
    return [{"type": kind, "text": text[s:e]} for s, e, kind in found]
