"""The keyed blind index and the keyed dedup hash of encrypted tenants.

Words are folded (lower case, no accents), split like the read path splits a query,
stopwords dropped and stemmed in Python with the Snowball stemmers PostgreSQL itself uses
(same stopword lists, copied from PostgreSQL into ``stopwords/``), so a stem here is the
lexeme PostgreSQL would have stored. Each stem is then replaced by an HMAC under the
tenant's index key, truncated to 80 bits: the database stores and matches tokens it
cannot read, in the ``simple`` configuration, at the positions the words had.

What it cannot do (docs/privacy.md): prefix and fuzzy matching, and phrase
structure beyond positions; PostgreSQL's parser special cases (e-mail addresses, URLs,
hyphenated words, decimals) are split as plain words. Equal stems give equal tokens, so
someone with the database sees how often a token occurs and which rows share it.

Each memory is stemmed in its own language, as a plaintext memory is (``Memory.language``,
``memories.languages``), and a query in each language its client's memories use. A token
is the same keyed hash of a stem whichever language's rules made the stem, so it tells
nothing more than before; what the database holds beside the tokens is each memory's
language (in the clear, as ``language`` always was) and how many of a client's memories
are in each (``LexemeCount``).
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
from memories.languages import ALL_CONFIGS, SIMPLE
from memories.text import QUERY_WORD, clean, fold

_WORD = re.compile(r"\w+")
_STOPWORDS = Path(__file__).with_name("stopwords")
MAX_POSITION = 16383  # PostgreSQL's largest tsvector position


# PostgreSQL's "dutch" is the Snowball algorithm that snowballstemmer 3 renamed.
_ALGORITHMS = {"dutch": "dutch_porter"}


@cache
def _stemmer(language: str):
    if language not in ALL_CONFIGS or language == SIMPLE:
        return None
    algorithm = _ALGORITHMS.get(language, language)
    if algorithm not in snowballstemmer.algorithms():
        algorithm = language
    return snowballstemmer.stemmer(algorithm)


@cache
def _stopwords(language: str) -> frozenset[str]:
    path = _STOPWORDS / f"{language}.stop"
    if not path.exists():
        return frozenset()
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip())


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


def vector_literal(text: str, *, tenant, config: str, speaker: str = "", context: str = "") -> str:
    """The blind tsvector of a memory of an encrypted tenant, before its client scope: the
    memory's words A, the speaker's name B, the turn it answers D (as a plaintext one is
    weighted), stemmed as a plaintext one is, in the memory's configuration ``config``."""
    return _tsvector_literal(
        keys.index_key(tenant.pk),
        [(text, config, "A"), (speaker, SIMPLE, "B"), (context, config, "D")],
    )


def search_vector(
    text: str, *, tenant, client_id, config: str, speaker: str = "", context: str = ""
):
    """The blind ``search_vector`` of a memory of an encrypted tenant (an expression),
    scoped by client as every search vector is (``vector_literal``)."""
    return RawSQL(
        "memory_search_vector(%s::tsvector, %s::uuid)",
        [
            vector_literal(text, tenant=tenant, config=config, speaker=speaker, context=context),
            client_id,
        ],
        output_field=SearchVectorField(),
    )


def query_tokens(tenant, query: str) -> list[tuple[str, str, int]]:
    """The query's words as blind tokens stemmed in every configuration a memory can be
    indexed in, as (configuration, token, position of the word): the read path keeps those
    of the configurations the client's memories use, and ORs them."""
    key = keys.index_key(tenant.pk)
    readings = []
    for config in ALL_CONFIGS:
        seen: set[str] = set()
        for position, stem in stems(query, config, pattern=QUERY_WORD):
            found = token(key, stem)
            if found not in seen and len(seen) == 32:
                continue
            seen.add(found)
            readings.append((config, found, position))
    return readings


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
