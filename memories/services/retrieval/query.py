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
from memories.services.topics import model as topic_model
from memories.services.topics.taxonomy import OTHER, SMALL_TALK


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
    # The floor it is held to (``floor.floor_for``): a value's, a yes or no's, or words
    # alone's.
    floor: str = "value"


def query_topics(query: str, space, vector) -> tuple[tuple[str, float], ...]:
    """What the question is about (``topics.model``): from its vector when it is the
    classifier's model's, else embedded locally for this. Small talk and "other" name no
    subject, and are left out."""
    if space is not None and space.model == topic_model.MODEL:
        [reading] = topic_model.read_vectors([vector])
    else:
        [reading] = topic_model.read_texts([query], input_type="query")
    return tuple((t, p) for t, p in reading.distribution if t not in (SMALL_TALK, OTHER))
