"""What a search is made of, once the query is read: the value the ranking statement and
its full-text part are built from (a module of its own, so that neither imports the other
for it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memories.models import Client, EmbeddingSpace
from memories.selectors.filters import Filters
from memories.services.retrieval.answers import Expected
from memories.services.retrieval.window import Window


@dataclass(frozen=True)
class Search:
    """What the statement is built from."""

    client: Client
    space: EmbeddingSpace | None  # None for a text-only search
    vector: object  # the query's vector in ``space``
    words: str  # the query's words, space-separated ('' for none)
    speakers: tuple[str, ...]  # the people the query names, lower case
    expected: Expected  # what kind of answer the query asks for (retrieval.answers)
    text_config: str  # the tenant's regconfig: queries are read in it, and in the client's
    filters: Filters
    weights: dict
    now: datetime
    k: int
    # Encrypted tenant: ``words`` are blind tokens, and these (configuration, token, word
    # position) each reading of the query's words (``blind.query_tokens``); None: words.
    blind_readings: tuple[tuple[str, str, int], ...] | None = None
    # The days the query asks about ("in April 2022"), if it names them.
    window: Window | None = None
    # The question asks about how things began ("when I first…", "initially").
    beginning: bool = False
    # What the question is about (memories.services.topics): each topic it may be about
    # and its probability, most likely first; and whom it asks about ("" the client, else a
    # role: "husband" for "What does her husband do?").
    topics: tuple[tuple[str, float], ...] = ()
    about: str = ""
    # It asks whether something is so (or is keywords), not for a value (``floor``).
    whether: bool = False
