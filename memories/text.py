"""Text normalisation shared by hashing, full-text indexing and extraction."""

from __future__ import annotations

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


def fold(text: str) -> str:
    """Lower case without accents: 'Perché più' → 'perche piu'. The embedded PostgreSQL has
    no ``unaccent``, so documents and queries are folded here, the same way."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def content_hash(text: str) -> str:
    """Identity of a statement for exact deduplication: folded, punctuation-insensitive."""
    canonical = " ".join(re.findall(r"\w+", fold(clean(text))))
    return hashlib.sha256(canonical.encode()).hexdigest()
