"""The keyed blind index and the keyed dedup hash of encrypted tenants.

Words are folded (lower case, no accents), split like the read path splits a query,
stopwords dropped and stemmed in Python with the Snowball stemmers PostgreSQL itself uses
(same stopword lists, copied from PostgreSQL into ``stopwords/``), so a stem here is the
lexeme PostgreSQL would have stored. Each stem is then replaced by an HMAC under the
tenant's index key, truncated to 80 bits: the database stores and matches tokens it
cannot read, in the ``simple`` configuration, at the positions the words had.

What it cannot do (README "Encrypted tenants"): prefix and fuzzy matching, and phrase
structure beyond positions; PostgreSQL's parser special cases (e-mail addresses, URLs,
hyphenated words, decimals) are split as plain words. Equal stems give equal tokens, so
someone with the database sees how often a token occurs and which rows share it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from functools import cache
from pathlib import Path

import snowballstemmer
from django.contrib.postgres.search import SearchVectorField
from django.db.models.expressions import RawSQL

from memories.crypto import keys
from memories.text import QUERY_WORD, clean, fold

_WORD = re.compile(r"\w+")
_STOPWORDS = Path(__file__).with_name("stopwords")
MAX_POSITION = 16383  # PostgreSQL's largest tsvector position


@cache
def _stemmer(language: str):
    if language in ("english", "italian", "spanish"):
        return snowballstemmer.stemmer(language)
    return None


@cache
def _stopwords(language: str) -> frozenset[str]:
    path = _STOPWORDS / f"{language}.stop"
    if not path.exists():
        return frozenset()
    return frozenset(line.strip() for line in path.read_text().splitlines() if line.strip())


def stems(text: str, language: str, *, pattern=_WORD) -> list[tuple[int, str]]:
    """(position, stem) of every indexed word of ``text``, positions counted from 1."""
    stemmer, stop = _stemmer(language), _stopwords(language)
    found = []
    for position, word in enumerate(pattern.findall(fold(text)), start=1):
        if word in stop:
            continue
        found.append((min(position, MAX_POSITION), stemmer.stemWord(word) if stemmer else word))
    return found


def token(key: bytes, stem: str) -> str:
    return "b" + hmac.new(key, b"w:" + stem.encode(), hashlib.sha256).hexdigest()[:20]


def _tsvector_literal(key: bytes, parts: list[tuple[str, str, str]]) -> str:
    """``parts``: (text, language, weight), in order; positions run on across parts, as
    PostgreSQL's ``||`` of tsvectors shifts them."""
    positions: dict[str, set[tuple[int, str]]] = {}
    offset = 0
    for text, language, weight in parts:
        found = stems(text, language)
        for position, stem in found:
            at = min(offset + position, MAX_POSITION)
            positions.setdefault(token(key, stem), set()).add((at, weight))
        offset = min(offset + max((p for p, _ in found), default=0), MAX_POSITION)
    return " ".join(
        f"{lexeme}:{','.join(f'{p}{w}' for p, w in sorted(at))}" for lexeme, at in positions.items()
    )


def search_vector(text: str, *, tenant, client_id, speaker: str = "", context: str = ""):
    """The blind ``search_vector`` of a memory of an encrypted tenant (an expression),
    scoped by client as every search vector is, weighted as a plaintext one is (the
    memory's words A, the speaker's name B, the turn it answers D)."""
    literal = _tsvector_literal(
        keys.index_key(tenant.pk),
        [(text, tenant.language, "A"), (speaker, "simple", "B"), (context, tenant.language, "D")],
    )
    return RawSQL(
        "memory_search_vector(%s::tsvector, %s::uuid)",
        [literal, client_id],
        output_field=SearchVectorField(),
    )


def query_tokens(tenant, query: str) -> list[str]:
    """The query's words as blind tokens (any of them: the read path ORs them)."""
    key = keys.index_key(tenant.pk)
    found = stems(query, tenant.language, pattern=QUERY_WORD)
    return list(dict.fromkeys(token(key, stem) for _, stem in found))[:32]


def attribute_token(tenant, words: str) -> str:
    """The free-text part of an attribute key (``preference:<head noun>``,
    ``relationship:<role>``), keyed: equal for equal words, unreadable."""
    digest = hmac.new(keys.index_key(tenant.pk), b"a:" + words.encode(), hashlib.sha256)
    return "k" + digest.hexdigest()[:20]


def content_hash(tenant, text: str) -> str:
    """Exact-dedup identity under the tenant's index key (a plain SHA-256 of a short
    statement can be reversed by guessing it)."""
    canonical = " ".join(re.findall(r"\w+", fold(clean(text))))
    return hmac.new(keys.index_key(tenant.pk), b"h:" + canonical.encode(), "sha256").hexdigest()
