"""Text normalisation shared by hashing, full-text indexing and extraction."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACE = re.compile(r"\s+")
# A word of a search query: one letter alone says nothing (a plaintext tenant's full text
# and an encrypted tenant's blind index split queries alike).
QUERY_WORD = re.compile(r"\w{2,}")


def clean(text: str) -> str:
    """NFC, no control characters, single spaces, trimmed."""
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


# Characters that show nothing: controls, format characters (zero-width spaces and
# joiners, word joiner, byte order mark, bidi marks, soft hyphen), separators, and the
# Hangul and Braille fillers, which are letters and symbols only in name.
_BLANK_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_blank(char: str) -> bool:
    return char in _FILLERS or char.isspace() or unicodedata.category(char) in _BLANK_CATEGORIES


def has_text(text: str) -> bool:
    """Whether ``text`` shows anything: not only whitespace, control, zero-width or filler
    characters (``"\u200b\u2060\ufeff"`` shows nothing)."""
    return not all(map(is_blank, text))


@functools.cache
def blank_ranges() -> str:
    """The blank characters of the Basic Multilingual Plane as a regular expression's
    character ranges (``\\u200b-\\u200f…``), for a schema to state what ``has_text`` asks."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF or not is_blank(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


def fold(text: str) -> str:
    """Lower case without accents: 'Perché più' → 'perche piu'. The embedded PostgreSQL has
    no ``unaccent``, so documents and queries are folded here, the same way."""
    folded = text.casefold()
    if folded.isascii():
        return folded  # no accent to take off, and NFKD leaves ASCII as it is
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def content_hash(text: str) -> str:
    """Identity of a statement for exact deduplication: folded, punctuation-insensitive."""
    canonical = " ".join(re.findall(r"\w+", fold(clean(text))))
    return hashlib.sha256(canonical.encode()).hexdigest()
