"""Who a query names: the client's speakers, and the client themself.

Every memory of a search is about its client, so the client's own name in a question
("Where does Lorenza live now?", "¿Qué perfil de riesgo tiene hoy Álvaro?", "la signora
Bertolini") says nothing about which memory answers it; read as a word or in the query's
vector it would only pull every greeting that names the client ("Buongiorno Lorenza")
closer. The client's names are those of its display name and of its reference when the
reference is a name written as a slug (``lorenza-bertolini``), with the titles said before
them. The people who speak in a client's conversations are another matter: a question that
names one asks for what that person said (the ``speaker`` component).
"""

from __future__ import annotations

import re

from memories.services.topics.people import client_names
from memories.text import QUERY_WORD, fold

_NAME_IN_QUERY = re.compile(r"\b(\w{2,})(?:'s|’s)?\b")
# Titles said before a name, and the words that stand for the client in a question.
_TITLES = frozenset(
    {
        "mr", "mrs", "ms", "miss", "dr", "sir", "madam", "signor", "signora", "signorina",
        "sig", "sigra", "dott", "dottor", "dottoressa", "don", "dona", "senor", "senora",
        "senorita", "sr", "sra", "srta",
    }
)  # fmt: skip
_THE_CLIENT = re.compile(
    r"\b(?:the client|our client|this client|(?:il|la|al|alla|del|della|dal|dalla) cliente"
    r"|(?:el|la|al|del) cliente|(?:el|la|al|del) client[ea]|the customer)\b",
    re.IGNORECASE,
)


def named_speakers(client, query: str) -> tuple[tuple[str, ...], str]:
    """The client's speakers the query names (lower case, as the statement compares them),
    and the query without their names ("When did Maria donate her car?" → Maria, and
    "When did donate her car?")."""
    known = [s for s in getattr(client, "speakers", None) or () if s]
    if not known:
        return (), query
    parts = {fold(part): s for s in known for part in QUERY_WORD.findall(s) if len(part) > 1}
    named: dict[str, None] = {}

    def drop(match: re.Match) -> str:
        speaker = parts.get(fold(match.group(1)))
        if speaker is None:
            return match.group(0)
        named[speaker.casefold()] = None
        return ""

    unnamed = _NAME_IN_QUERY.sub(drop, query)
    return tuple(named), _spaced(unnamed) if named else query


def without_client(client, query: str) -> str:
    """The query without the client's own names, the titles before them, and the words
    that stand for the client ("the client", "la cliente"); the query itself when nothing
    would be left of it."""
    names = client_names(client)
    text = _THE_CLIENT.sub(" ", query)
    if names:
        text = _drop_names(text, names)
    text = _spaced(text)
    return text if QUERY_WORD.search(text) else query


_WORD = re.compile(r"(\w+)(?:'s|’s)?")


def _drop_names(text: str, names: frozenset[str]) -> str:
    """``text`` without the words that are ``names``, nor the title said before one ("la
    signora Bertolini", "Mrs. Hollis")."""
    words = list(_WORD.finditer(text))
    cut: list[tuple[int, int]] = []
    for i, word in enumerate(words):
        if fold(word.group(1)) not in names:
            continue
        start = word.start()
        before = words[i - 1] if i else None
        if (
            before is not None
            and fold(before.group(1)) in _TITLES
            and re.fullmatch(r"\.?\s+", text[before.end() : word.start()])
        ):
            start = before.start()
        cut.append((start, word.end()))
    for start, end in reversed(cut):
        text = text[:start] + text[end:]
    return text


def _spaced(text: str) -> str:
    text = re.sub(r"\s+([,?!.;:])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()
