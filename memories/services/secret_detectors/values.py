"""The words of a text, and which of them can be a secret's value: a string no one writes
as a word ("Tr0ub4dor&3"), digits ("4471", "4 4 7 1", "44-71-90"), a value spelled out
("four four seven one", "P a s s w o r d 1 2 3"), one in quotes ("'river stone velvet
anchor'"), a long random string (a key); and which are words of the sentence instead: a
date, an amount, a hyphenated word, a participle ("the password was reset")."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from memories.text import fold


def vocabulary(text: str) -> frozenset[str]:
    """The words of ``text``: a list of words written as prose."""
    return frozenset(text.split())


_OPENING = "\"'“‘«(¿¡["
_CLOSING = "\"'”’»)]"
_QUOTES = "\"'“‘«”’»"
# Punctuation after a word that ends its clause, and of those, its sentence.
_CLAUSE_END = frozenset(".,;:!?…")
_SENTENCE_END = frozenset(".;!?…")


@dataclass(frozen=True)
class Word:
    """A run of non-space characters, and its core: without the quotes, brackets and
    punctuation around it."""

    raw: str
    start: int  # of the raw run in the text
    core_start: int
    core_end: int
    lead: str  # what the core is opened with: quotes, brackets
    trail: str  # what closes it: quotes, brackets, the punctuation of the sentence
    newline_before: bool

    @property
    def core(self) -> str:
        return self.raw[self.core_start - self.start : self.core_end - self.start]

    @property
    def end(self) -> int:
        return self.start + len(self.raw)

    @cached_property
    def folded(self) -> str:
        """Lower case without accents: for words whose accents say nothing."""
        return fold(self.core)

    @cached_property
    def lower(self) -> str:
        """Lower case with accents: "è" (is) is not "e" (and)."""
        return self.core.casefold()

    @property
    def ends_clause(self) -> bool:
        return any(c in _CLAUSE_END for c in self.trail)

    @property
    def ends_sentence(self) -> bool:
        return any(c in _SENTENCE_END for c in self.trail)


def words_of(text: str) -> list[Word]:
    found = []
    previous_end = 0
    for m in re.finditer(r"\S+", text):
        raw = m.group()
        core_start, core_end = 0, len(raw)
        while core_start < core_end and raw[core_start] in _OPENING:
            core_start += 1
        while core_end > core_start and (
            raw[core_end - 1] in _CLOSING or raw[core_end - 1] in _CLAUSE_END
        ):
            core_end -= 1
        found.append(
            Word(
                raw=raw,
                start=m.start(),
                core_start=m.start() + core_start,
                core_end=m.start() + core_end,
                lead=raw[:core_start],
                trail=raw[core_end:],
                newline_before="\n" in text[previous_end : m.start()],
            )
        )
        previous_end = m.end()
    return found


# --- Shapes of a value ----------------------------------------------------------------------

_DIGITS = re.compile(r"\d+(?:-\d+)*")  # "4471", "44-71-90"
_DATE = re.compile(
    r"(?:\d{4}-\d{1,2}-\d{1,2}|(?:0?[1-9]|[12]\d|3[01])[-.](?:0?[1-9]|1[0-2])[-.]\d{2,4})"
)
_AMOUNT = re.compile(r"[€$£¥]?\d[\d.,']*(?:[kKmM]|bn|%|€|\$|£)?|\d[\d.,]*[.,]\d+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th|º|ª|°|o|a)", re.IGNORECASE)
_HYPHENATED = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)+")
_WEB = re.compile(
    r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.]+|"
    r"[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|it|es|eu|uk|ch|de|fr|io|co|info|gov|edu|pdf|docx?|xlsx?|csv|txt|jpe?g|png)",
    re.IGNORECASE,
)
# A dotted name in code: "req.body", "user.password_hash", "cv2.VideoCapture".
_DOTTED = re.compile(r"[a-z_]\w*(?:\.[A-Za-z_]\w*)+")
# A key is long and random: at least this long, and about this many bits a character.
KEY_LENGTH = 16
KEY_ENTROPY = 3.0


def digits(core: str) -> int:
    """How many digits a value of digits holds ("44-71-90": 6), or 0 for anything else."""
    if not _DIGITS.fullmatch(core) or _DATE.fullmatch(core):
        return 0
    return sum(c.isdigit() for c in core)


def hard(core: str) -> bool:
    """Written as no word is: letters with digits or symbols ("Tr0ub4dor&3", "Sol-Luna9",
    "Xk7-pQ2m"), long enough not to be a model or a quarter ("Q3", "2FA", "3rd"), and not a
    date, an amount, an address or a hyphenated word."""
    if len(core) < 6 or core.startswith("[") or _quiet(core):
        return False
    letters = any(c.isalpha() for c in core)
    numbers = any(c.isdigit() for c in core)
    symbols = any(not c.isalnum() for c in core)
    return letters + numbers + symbols >= 2 and (letters or symbols)


def _quiet(core: str) -> bool:
    """A word, a date, an amount, an ordinal, an address, a file: not a value said."""
    return bool(
        _HYPHENATED.fullmatch(core)
        or _DATE.fullmatch(core)
        or _AMOUNT.fullmatch(core)
        or _ORDINAL.fullmatch(core)
        or _WEB.fullmatch(core)
        or _DOTTED.fullmatch(core)
        or ("/" in core and all(part.isdigit() for part in core.split("/")))
    )


def key_like(core: str) -> bool:
    """A long random string: letters and digits (base64, hex, a provider's token) of high
    entropy."""
    if len(core) < KEY_LENGTH or _quiet(core) or " " in core:
        return False
    if not (any(c.isalpha() for c in core) and any(c.isdigit() for c in core)):
        return False
    return entropy(core) >= KEY_ENTROPY and worded(core) < KEY_WORDED and not _structured(core)


def _structured(core: str) -> bool:
    """A reference made of parts, each a number, a word or a short code ("Q3-2026-BOARD-
    REVIEW", "INV_2024_000123"): a key's parts mix cases and digits ("sk_live_4eC39Hq…")."""
    parts = [p for p in re.split(r"[-_/.]", core) if p]
    return len(parts) >= 2 and all(
        p.isdigit() or len(p) <= 3 or (p.isalpha() and (p.islower() or p.isupper() or p.istitle()))
        for p in parts
    )


# Names in code are mostly words ("AllowAccessToS3Bucket", "passport-google-oauth20",
# "container-instance-1": 0.83 to 0.9 of their characters); keys are not (random ones
# 0 to 0.45; AWS's published example key, with EXAMPLEKEY in it, 0.78).
KEY_WORDED = 0.8
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")


def worded(core: str) -> float:
    """The share of ``core`` in parts that read as words (two letters or more, a vowel)."""
    parts = _PART.findall(core)
    return sum(len(p) for p in parts if len(p) >= 2 and _VOWEL.search(p)) / len(core)


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


# Digits said as words, in the three languages ("four four seven one", "quattro quattro
# sette uno", "cuatro cuatro siete uno").
NUMBER_WORDS = vocabulary(
    """
    zero oh one two three four five six seven eight nine uno due tre quattro cinque sei
    sette otto nove cero dos tres cuatro cinco seis siete ocho nueve
    """
)
# What a number before them counts: "the PIN is 4 digits", "tried 3 times".
UNITS = vocabulary(
    """
    digit digits number numbers character characters letter letters time times try tries
    attempt attempts day days week weeks month months year years minute minutes hour
    hours euro euros dollar dollars pound pounds percent cifra cifre numeri carattere
    caratteri lettere volta volte tentativo tentativi giorno giorni settimana settimane
    mese mesi anno anni minuto minuti ora ore per cento digito digitos numero numeros
    caracter caracteres letra letras vez veces intento intentos dia dias semana semanas
    meses ano anos minutos horas por ciento
    """
)


def run_of(words: list[Word], at: int, *, most: int = 12) -> tuple[int, str] | None:
    """A value said in pieces from ``words[at]``: single characters ("P a s s w o r d 1 2
    3", "4 4 7 1"), groups of digits ("44 71", "735 201") or digits said as words, three
    pieces or more (two for groups of digits); (index after it, its shape) or None. It
    stays in its sentence."""
    shape = _piece(words[at])
    if shape is None or words[at].lower in _ONE_LETTER_WORDS:
        return None  # "il codice è 7 3 1 9": the run starts after "è"
    end = at + 1
    while end < len(words) and end - at < most:
        if words[end - 1].ends_clause or words[end].newline_before or words[end].lead:
            break
        if _piece(words[end]) != shape and not (shape == "char" and _piece(words[end]) == "group"):
            break
        end += 1
    pieces = end - at
    if (shape == "group" and pieces >= 2) or pieces >= 3:
        if end < len(words) and words[end].folded in UNITS and not words[end - 1].ends_clause:
            return None  # "4 4 digits"
        return end, shape
    return None


# Words of one letter, which do not open a value spelled out.
_ONE_LETTER_WORDS = vocabulary("a e i o y u è é à ó")


def _piece(word: Word) -> str | None:
    core = word.core
    if len(core) == 1 and core.isalnum():
        return "char"
    if core.isdigit() and len(core) <= 4:
        return "group"
    if word.folded in NUMBER_WORDS:
        return "word"
    return None
