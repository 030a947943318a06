"""Secrets said with their name, in English, Italian and Spanish, the value after the name
("my pass is Tr0ub4dor&3", "Il codice di accesso all home banking è …", "pw Zebra2024!",
"il pin è giusto, è 9173") or before it ("It's Tulip#8832, that's my password.", "Usa
Pesca-2020 come password"), as one string, digits, a value spelled out or in quotes.

A name is strong ("password", "PIN", "CVV", "codice segreto") or weak: a word that names a
secret only sometimes ("la clave es diversificar", "the key is to start early", "pass",
"token"). After a weak name only a value no one would take for a word counts; after a
strong one a plain word does too, when it ends its clause and is not a word said of a
password ("the password is sunshine." but not "… is changing next week", "… was reset by
IT", "… è sbagliata").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.services.secret_detectors.names import (
    ARTICLES,
    CONJUNCTIONS,
    FILLERS,
    INFLECTED,
    JOINING_BEFORE,
    LINKING_BEFORE,
    LINKS,
    NAME,
    NAMES,
    NEGATION,
    NOT_VALUES,
    PLURAL_LINKS,
    PLURALS,
    SET_AFTER,
    SET_BEFORE,
    SETTING,
    TO,
)
from memories.services.secret_detectors.values import (
    KEY_WORDED,
    NUMBER_WORDS,
    UNITS,
    Word,
    digits,
    hard,
    key_like,
    run_of,
    vocabulary,
    worded,
    words_of,
)

# Words of the name's own phrase before its link ("for the client portal", "della carta di
# mia moglie", "so you can check the balance at the machine:").
_PHRASE_WORDS = 9
# After a link that led to no value, another link this close still may ("il pin è giusto,
# è 9173"); after a value, the one it was changed to, this close ("… but I changed it to").
_RELINK_WORDS = 3
_AGAIN_WORDS = 5


@dataclass(frozen=True)
class Found:
    kind: str
    start: int
    end: int


def named(text: str, held: list[tuple[int, int]]) -> list[Found]:
    """The values said with a name of a secret in ``text``; names inside ``held`` (what was
    withheld before) are not read."""
    matches = [m for m in NAME.finditer(text) if not any(a <= m.start() < b for a, b in held)]
    if not matches:
        return []
    words = words_of(text)
    found = []
    for m in matches:
        kind, strength, _ = NAMES[int(m.lastgroup[1:])]  # type: ignore[index]
        if m.group().casefold().endswith(PLURALS):
            strength = "weak"  # "passwords are a pain": passwords in general
        first, last = _words_of_name(words, m.start(), m.end())
        taken = _after(text, words, first, last, m.end(), kind, strength)
        if not taken and strength == "strong":
            before = _before(words, first, kind)
            if before is None:
                before = _next_sentence(words, last, kind, strength)
            taken = [before] if before is not None else []
        found += [Found(kind, start, end) for start, end in taken]
    return found


def _words_of_name(words: list[Word], start: int, end: int) -> tuple[int, int]:
    first = next(i for i, w in enumerate(words) if w.end > start)
    last = first
    while last + 1 < len(words) and words[last + 1].start < end:
        last += 1
    return first, last


def _after(
    text: str, words: list[Word], first: int, last: int, name_end: int, kind: str, strength: str
) -> list[tuple[int, int]]:
    """The values said after the name (words[first..last]), within its sentence and line:
    the first, and one it was changed to ("used to be Winter2019 but I changed it to …")."""
    linked = bool(re.match(r"(?:[:=]|['’]s\b)", text[name_end : words[last].end]))
    if words[last].ends_sentence and not linked:
        return []
    before = text[max(0, words[first].start - 40) : words[first].start]
    set_before = bool(SET_BEFORE.search(before))
    values: list[tuple[int, int]] = []
    budget, plain, direct = _PHRASE_WORDS, True, last + 1
    if not linked and (words[last].trail.strip(",") or words[last].ends_clause):
        # The name quoted or bracketed ('type="password"'), or its clause ended: only "my
        # PIN, 4471", never "check(password, hashed_password)".
        direct = -1 if words[last].trail != "," else direct
        comma = True
    else:
        comma = False
    labels = True  # a word before ":" links too, until a link has led to no value
    i = last + 1
    while i < len(words) and not words[i].newline_before:
        word = words[i]
        if not linked:
            if i == direct or (i == direct + 1 and words[direct].lower in ARTICLES):
                # Right after the name: "pw Zebra2024!", "CVV 737", "contraseña Perro1234".
                value = value_at(words, i, kind, strength, plain=False)
                if value is not None and comma and worded(text[value[0] : value[1]]) >= KEY_WORDED:
                    value = None  # "(password, expected_status)": a name in code
                if value is not None:
                    values.append(value[:2])
                    i, budget, direct, set_before = value[2] + 1, _AGAIN_WORDS, -1, False
                    plain = False
                    continue
            if word.lower in NEGATION and (
                "'" in word.lower
                or "’" in word.lower
                or (i + 1 < len(words) and words[i + 1].lower in LINKS)
            ):
                break  # "the password isn't …", "la password non è più valida"; not the
                # "no" of "la contraseña de la app, para no olvidarla: …"
            linked = (
                (
                    not values
                    and (word.lower in LINKS or (labels and any(c in word.trail for c in ":=")))
                )
                or word.lower in SET_AFTER
                or (set_before and word.lower in TO)
            )
            if linked and set_before and word.lower in TO and word.lower != "to":
                plain = False  # "changed the password in March": "in" may be a time
            if linked and word.lower in PLURAL_LINKS:
                plain = False  # "le password sono una seccatura": passwords in general
            set_before = set_before or bool(SETTING.match(word.lower))
            if word.ends_sentence and ":" not in word.trail:
                break
            if not linked:
                budget -= 1
                if budget < 0:
                    break
            i += 1
            continue
        if word.folded in FILLERS or word.lower in ARTICLES:
            if word.ends_sentence:
                break
            i += 1
            continue
        value = value_at(words, i, kind, strength, plain=plain)
        if value is not None:
            values.append(value[:2])
            i, budget, plain, direct, set_before = value[2] + 1, _AGAIN_WORDS, False, -1, False
            linked = False
            if words[value[2]].ends_sentence:
                break
            continue
        if word.ends_sentence:
            break
        # Not a value: "il pin è giusto, è 9173" says it a few words on (a label of its own,
        # "{ expiresIn: '1h' }", names another thing).
        linked, budget, plain, labels = False, _RELINK_WORDS, False, False
        i += 1
    return values


# Words that may open a sentence that gives the value of the one before, its subject left
# out: "… la he cambiado. Ahora es Aceituna.Verde.77", "… I changed it. Now it's …".
_OPENING = vocabulary("it that this and but so y e ma pero")


def _next_sentence(
    words: list[Word], last: int, kind: str, strength: str
) -> tuple[int, int] | None:
    """The value said at the start of the sentence after the name's, as the point of it:
    "la contraseña de la app la he cambiado. Ahora es Aceituna.Verde.77, apúntatela",
    "Ho cambiato il PIN. Adesso è 5521." (a value no one takes for a word, ending its
    clause: "I reset my PIN. It's 2025 already." gives none)."""
    within = range(last, min(len(words), last + 2 * _PHRASE_WORDS))
    end = next((k for k in within if words[k].ends_sentence), None)
    if end is None or "?" in words[end].trail:
        return None
    for k in range(end + 1, min(end + 4, len(words))):
        word = words[k]
        if word.newline_before:
            return None
        if word.lower in LINKS:
            j = k + 1
            while j < len(words) and (words[j].folded in FILLERS or words[j].lower in ARTICLES):
                j += 1
            value = value_at(words, j, kind, strength, plain=False) if j < len(words) else None
            if value is None or not (words[value[2]].ends_clause or value[2] + 1 == len(words)):
                return None
            return value[0], value[1]
        if word.folded not in FILLERS and word.lower not in _OPENING:
            return None
    return None


def value_at(
    words: list[Word], i: int, kind: str, strength: str, *, plain: bool
) -> tuple[int, int, int] | None:
    """The value of a secret of this kind that starts at words[i], if one does: (start,
    end, index of its last word); a plain word only if ``plain`` and the name is strong."""
    word = words[i]
    core = word.core
    if not core or core.startswith("[") or _computed(word.raw):
        return None
    quoted = _quoted(words, i)
    if quoted is not None:
        start, end, j, inner = quoted
        if NAME.search(inner):
            return None  # "'Password must be at least 8 characters'": said of it
        if kind in _DIGITS_ONLY and not any(c.isdigit() for c in inner):
            return None
        if kind == "api_key" and not key_like(inner):
            return None  # "token = 'your_token_here'"
        if strength == "weak" and (
            " " in inner or not (hard(inner) or any(c.isdigit() for c in inner))
        ):
            return None  # "la clave es 'paciencia'", "'a long-term view'": words stressed
        return start, end, j
    run = run_of(words, i)
    if run is not None:
        end, _ = run
        if kind == "api_key" or (kind in _DIGITS_ONLY and not _all_digits(words, i, end)):
            return None
        return word.core_start, words[end - 1].core_end, end - 1
    count = digits(core)
    if count:
        if i + 1 < len(words) and words[i + 1].folded in UNITS and not word.ends_clause:
            return None  # "the PIN is 4 digits"
        if strength == "weak" and _YEAR.fullmatch(core):
            return None  # "la clave del asunto es el 2027"
        least, most = _DIGIT_COUNTS.get(kind, (4 if strength == "weak" else 3, 64))
        return (word.core_start, word.core_end, i) if least <= count <= most else None
    if kind in _DIGITS_ONLY:
        return None  # "the PIN is on the back of the letter"
    if kind == "api_key":
        return (word.core_start, _with_marks(word), i) if key_like(core) else None
    if hard(core):
        after = _after_slash(words, i)
        return after if after is not None else (word.core_start, _with_marks(word), i)
    if not plain or strength == "weak" or kind == "code":
        return None
    return (word.core_start, word.core_end, i) if _a_plain_value(words, i) else None


_YEAR = re.compile(r"(?:19|20)\d\d")
# Kinds whose values are digits, and how many a value of each kind holds.
_DIGITS_ONLY = frozenset({"pin", "security_code"})
_DIGIT_COUNTS = {"security_code": (3, 4), "pin": (3, 8), "code": (3, 8), "api_key": (99, 99)}


def _all_digits(words: list[Word], start: int, end: int) -> bool:
    return all(w.core.isdigit() or w.folded in NUMBER_WORDS for w in words[start:end])


def _after_slash(words: list[Word], i: int) -> tuple[int, int, int] | None:
    """ "user / password" said together ("login: emma_r / Pens10n$afe"): the password."""
    if i + 2 < len(words) and words[i + 1].raw == "/":
        after = words[i + 2]
        if hard(after.core):
            return after.core_start, _with_marks(after), i + 2
    return None


def _with_marks(word: Word) -> int:
    """The end of a value that ends in "!" or "?" ("Zebra2024!"): a password holds them
    more often than it is exclaimed."""
    marks = len(word.trail) - len(word.trail.lstrip("!?"))
    return word.core_end + marks


def _quoted(words: list[Word], i: int) -> tuple[int, int, int, str] | None:
    """A value in quotes from words[i] ("'S3cretPass!'", "'river stone velvet anchor'"):
    (start, end, index of its last word, what is inside), within a few words of a line."""
    word = words[i]
    opening = next((c for c in word.lead if c in _QUOTES), None)
    if opening is None:
        return None
    closing = _CLOSING_QUOTE.get(opening, opening)
    for j in range(i, min(i + 8, len(words))):
        if j > i and (words[j].newline_before or words[j].lead):
            return None
        if closing in words[j].trail:
            inner = " ".join(w.core for w in words[i : j + 1])
            return word.core_start, _with_marks(words[j]), j, inner
    return None


_QUOTES = "\"'“‘«"
_CLOSING_QUOTE = {"“": "”", "‘": "’", "«": "»"}


def _a_plain_value(words: list[Word], i: int) -> bool:
    """A plain word that ends its clause and is none of what is said of a password."""
    from memories.services.extraction.clauses import STOPWORDS

    word = words[i]
    folded = word.folded
    if not word.core.isalpha() or len(folded) < 4:
        return False
    if folded in STOPWORDS or folded in NOT_VALUES or INFLECTED.search(folded):
        return False
    last = i + 1 >= len(words) or words[i + 1].newline_before
    return word.ends_clause or last or words[i + 1].lower in CONJUNCTIONS


def _before(words: list[Word], first: int, kind: str) -> tuple[int, int] | None:
    """The value said before the name: "Tr0ub4dor&3 is my new password", "4471 is the PIN",
    "Tramonto_2023, questa è la password", "Usa Pesca-2020 come password"."""
    linked = False
    for i in range(first - 1, max(-1, first - 6), -1):
        word = words[i]
        if words[i + 1].newline_before:
            return None
        if word.lower in JOINING_BEFORE:
            if word.ends_sentence:
                return None
            linked = linked or word.lower in LINKING_BEFORE
            continue
        if not linked or any(c in ".;?" for c in word.trail):
            return None
        quoted = _quoted_back(words, i)
        if quoted is not None:
            return quoted
        if kind in _DIGITS_ONLY or kind == "code":
            return (word.core_start, word.core_end) if 3 <= digits(word.core) <= 8 else None
        return (word.core_start, _with_marks(word)) if hard(word.core) else None
    return None


def _quoted_back(words: list[Word], j: int) -> tuple[int, int] | None:
    """A value in quotes that ends at words[j]."""
    closing = next((c for c in words[j].trail if c in "\"'”’»"), None)
    if closing is None:
        return None
    opening = {"”": "“", "’": "‘", "»": "«"}.get(closing, closing)
    for i in range(j, max(-1, j - 8), -1):
        if opening in words[i].lead:
            return words[i].core_start, _with_marks(words[j])
    return None


# Code that computes the value ("password = hash(raw)", "token = tokens[0]") or a template
# that stands for it ("{token}", "${{ secrets.KEY }}").
_COMPUTED = re.compile(r"[\w.$]+[(\[]|[{$]")


def _computed(raw: str) -> bool:
    return bool(_COMPUTED.match(raw.lstrip("\"'")))
