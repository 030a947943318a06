"""When a question asks about: the days it names, as a window the ranking weighs softly
("in April 2022", "last week", "on 21 December 2022"), and the question without them; or
how things began ("when I first…", "initially": ``asks_beginning``)."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memories.services.extraction.normalise import MONTHS, match_form
from memories.services.extraction.time_expressions import Happened, on_day, said_back
from memories.services.extraction.time_patterns import DAY_MONTH, ISO, MONTH, MONTH_DAY


@dataclass(frozen=True)
class Window:
    """The days a question asks about ("in April 2022", "last week", "on 21 December
    2022"), with ``slack`` days either side where a memory is still half inside."""

    first: date
    last: date
    slack: int


_MONTH_YEAR = re.compile(rf"\b(?P<m>{MONTH})\s(?:de\s|del\s|of\s)?(?P<y>(?:19|20)\d{{2}})\b")
_YEAR_ALONE = re.compile(
    r"\b(?:in|during|of|since|before|after|nel|durante|del|en(?: el)?|de)\s((?:19|20)\d{2})\b"
)
_SLACK = {"day": 3, "week": 4, "month": 15, "year": 60}


def query_window(query: str, now: datetime) -> tuple[Window | None, str]:
    """The days a question asks about, if it names them, and the question with that
    expression taken out (what its meaning is compared on). Only what names its days
    without doubt: a date or a month with its year, a year, or an expression of the past
    resolved against ``now`` (yesterday, last week, two months ago); the first one said."""
    today = now.date()
    folded = match_form(query)
    found: list[tuple[int, int, Happened]] = []
    for pattern in (DAY_MONTH, MONTH_DAY):
        for m in pattern.finditer(folded):
            day_, month = (m[1], m[2]) if pattern is DAY_MONTH else (m[2], m[1])
            if m[3] and (when := on_day(int(m[3]), MONTHS[month], int(day_))):
                found.append((m.start(), m.end(), Happened(when, "day")))
    for m in ISO.finditer(folded):
        if when := on_day(int(m[1]), int(m[2]), int(m[3])):
            found.append((m.start(), m.end(), Happened(when, "day")))
    for m in _MONTH_YEAR.finditer(folded):
        if when := on_day(int(m["y"]), MONTHS[m["m"]], None):
            found.append((m.start(), m.end(), Happened(when, "month")))
    for m in _YEAR_ALONE.finditer(folded):
        found.append((m.start(), m.end(), Happened(date(int(m[1]), 1, 1), "year")))
    for start, happened in said_back(folded, today):
        found.append((start, start, happened))  # left in the question
    if not found:
        return None, query
    start, end, happened = min(found, key=lambda item: (item[0], -item[1]))
    first = happened.day
    last = {
        "week": first + timedelta(days=6),
        "month": first.replace(day=calendar.monthrange(first.year, first.month)[1]),
        "year": date(first.year, 12, 31),
    }.get(happened.precision, first)
    window = Window(first, last, _SLACK[happened.precision])
    if end == start or len(folded) != len(query):
        return window, query
    rest = _DANGLING.sub("", query[:start] + query[end:])
    rest = re.sub(r"\s+(?=[?!.,]|$)", "", re.sub(r"\s{2,}", " ", rest)).strip()
    return window, rest or query


# A preposition left before the question mark once the date is taken out.
_DANGLING = re.compile(
    r"\s(?:in|on|of|during|since|before|after|nel|a|di|en|el|de|del)\s*(?=[?¿!.]*\s*$)",
    re.IGNORECASE,
)


# The question asks about how things began: "when I first described my setup", "at the
# start", "initially", "all'inizio", "al principio". Matched on the folded question.
_BEGINNING = re.compile(
    r"\b(?:i|we) first\b|\b(?:at|from) the (?:very )?(?:start|beginning|outset)\b"
    r"|\b(?:initially|originally|at first|in the beginning)\b"
    r"|\b(?:my|our) (?:initial|original)\b|\bwhen (?:i|we) (?:started|began)\b"
    r"|\ball'?\s?inizio\b|\binizialmente\b|\bla prima volta che\b"
    r"|\bquando ho (?:iniziato|cominciato)\b"
    r"|\bal principio\b|\binicialmente\b|\bla primera vez que\b|\bcuando empece\b"
)


def asks_beginning(query: str) -> bool:
    """The question asks about how things began (``_BEGINNING``): what was said first
    answers it best."""
    return bool(_BEGINNING.search(match_form(query)))


# A question after a value as it was, not as it is: "Where did she live before the move?",
# "Che lavoro faceva prima?", "¿Dónde vivía antes?".
_BEFORE = re.compile(
    r"\b(?:before|previous(?:ly)?|used to|formerly|former|in the past|beforehand|earlier"
    r"|prima|precedente(?:mente)?|in passato|una volta|antes|anterior(?:mente)?|previamente"
    r"|antiguamente|solia|solian)\b"
)


def asks_before(query: str) -> bool:
    """The question asks for a value as it was before (``_BEFORE``): the newest version is
    not its answer."""
    return bool(_BEFORE.search(match_form(query)))


# A question about how things went, several values put together or in order: "Summarize how
# the response times went", "How has her risk profile changed over time?", "Riassumi…",
# "¿Cómo ha evolucionado…?": every version is the answer, in its own order.
_HISTORY = re.compile(
    r"\b(?:summar\w*|recap|overview|history|histor\w*|evolv\w*|evolution|progress\w*|changed"
    r"|over time|throughout|timeline|order|sequence|chronolog\w*|went|how did .* go|list"
    r"|riassum\w*|riepilog\w*|storia|evoluzion\w*|evolut\w*|cambiat\w*|nel tempo|ordine"
    r"|elenc\w*|resum\w*|historia|evoluci\w*|evolucion\w*|cambiad\w*|a lo largo|orden)\b"
)


def asks_history(query: str) -> bool:
    """The question asks how something went, or for several of its values (``_HISTORY``):
    no version stands for the others."""
    return bool(_HISTORY.search(match_form(query)))
