"""Time expressions in events (en, it, es), resolved to calendar days.

A day resolves in ``observed_at``'s timezone, and a statement bound to that day stays
valid until the *end* of it (the next midnight). ``next week`` is seven days on, ``next
month``/``next year`` one calendar month/year on, ``this week`` ends on Sunday, a bare
month (``per marzo``) at its last day, a weekday at its next occurrence (never today, so
``next Tuesday`` said on a Monday is tomorrow). A day and month without a year that has
already passed this year means next year. The furthest expression wins. Patterns run on
folded text (``normalise.match_form``).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from memories.services.extraction.normalise import (
    MONTHS,
    NUMBER,
    NUMBER_WORDS,
    WEEKDAYS,
)
from memories.services.extraction.time_patterns import (
    A_FEW,
    DAY_AFTER,
    DAY_MONTH,
    DAY_OF_MONTH,
    FIXED_PATTERNS,
    FORTNIGHT,
    ISO,
    MONTH_ALONE,
    MONTH_DAY,
    NUMERIC,
    PAST,
    RELATIVE,
    UNIT,
    UNITS,
    WEEKDAY,
    WEEKDAY_AHEAD,
)


@dataclass(frozen=True)
class Temporal:
    until: datetime | None  # end of the furthest future day mentioned
    target: date | None  # that day
    past: bool  # looks back (yesterday, last week, tre anni fa) and names no future day


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _dated(year: int | None, month: int, day: int | None, today: date) -> date | None:
    """A valid day (the month's last when ``day`` is None); next year's when already past."""
    year_ = year or today.year
    if not (1900 <= year_ <= 2200 and 1 <= month <= 12):
        return None
    last = calendar.monthrange(year_, month)[1]
    if day is not None and not 1 <= day <= last:
        return None
    target = date(year_, month, day or last)
    if year is None and target < today:
        return _dated(today.year + 1, month, day, today)
    return target


def _fixed(how: str, n: int, today: date) -> date:
    if how == "days":
        return today + timedelta(days=n)
    if how == "week_end":
        return today + timedelta(days=6 - today.weekday())
    if how == "month_end":
        return date(today.year, today.month, calendar.monthrange(today.year, today.month)[1])
    if how == "year_end":
        return date(today.year, 12, 31)
    return _add_months(today, n)


def _relative(n: int, unit: str, today: date) -> date:
    if unit in "hd":
        return today + timedelta(days=n if unit == "d" else n // 24)
    if unit == "w":
        return today + timedelta(weeks=n)
    return _add_months(today, n * (12 if unit == "y" else 1))


def days_ahead(folded: str, today: date) -> list[tuple[int, date]]:
    """Where each span ahead is said ("in ten days", "tra un paio di settimane", "dentro de
    unos quince dias", "in a fortnight", "tengo diez dias para pagar"), or a day of the
    month alone said as a deadline ("scade il 15"), and the day each names."""
    found = []
    for m in RELATIVE.finditer(folded):
        if fortnight := m["f"] or m["f3"]:
            found.append((m.start(), today + timedelta(days=FORTNIGHT[fortnight])))
            continue
        amount, unit = m["n"] or m["n3"], m["u"] or m["u3"]
        n = int(amount) if amount.isdigit() else A_FEW.get(amount) or NUMBER_WORDS[amount]
        found.append((m.start(), _relative(n, UNITS[unit], today)))
    for m in DAY_OF_MONTH.finditer(folded):
        day = int(m["d"])
        month = today.replace(day=1)
        for _ in range(3):  # this month's, else the next month that has that day
            last = calendar.monthrange(month.year, month.month)[1]
            if day <= last and (when := month.replace(day=day)) >= today:
                found.append((m.start(), when))
                break
            month = _add_months(month, 1)
    return found


def resolve_time(folded: str, observed_at: datetime) -> Temporal:
    """The furthest future day a (folded) statement is bound to, and whether it looks back."""
    today = observed_at.date()
    targets: list[date | None] = [
        _fixed(how, n, today) for pattern, how, n in FIXED_PATTERNS if pattern.search(folded)
    ]
    targets += [day for _, day in days_ahead(folded, today)]
    for m in WEEKDAY_AHEAD.finditer(folded):
        targets.append(today + timedelta(days=(WEEKDAYS[m["d"]] - today.weekday() - 1) % 7 + 1))
    for m in ISO.finditer(folded):
        targets.append(_dated(int(m[1]), int(m[2]), int(m[3]), today))
    for m in NUMERIC.finditer(folded):
        year = int(m[4]) + (2000 if len(m[4]) == 2 else 0)
        targets.append(_dated(year, int(m[3]), int(m[1]), today))
    for m in DAY_MONTH.finditer(folded):
        targets.append(_dated(int(m[3]) if m[3] else None, MONTHS[m[2]], int(m[1]), today))
    for m in MONTH_DAY.finditer(folded):
        targets.append(_dated(int(m[3]) if m[3] else None, MONTHS[m[1]], int(m[2]), today))
    for m in MONTH_ALONE.finditer(folded):
        if not DAY_AFTER.match(folded, m.end("m")):
            targets.append(_dated(int(m["y"]) if m["y"] else None, MONTHS[m["m"]], None, today))
    target = max((t for t in targets if t is not None and t >= today), default=None)
    if target is None:
        return Temporal(until=None, target=None, past=bool(PAST.search(folded)))
    until = datetime.combine(target + timedelta(days=1), time(0), tzinfo=observed_at.tzinfo)
    return Temporal(until=until, target=target, past=False)


# --- When a past thing happened ------------------------------------------------------------
@dataclass(frozen=True)
class Happened:
    """When the thing a statement tells of happened: ``day`` is the first day of a span of
    ``precision`` (day, week, month or year)."""

    day: date
    precision: str


_AGO = (
    rf"\b(?P<n>{NUMBER}|a few|a couple of|qualche|unos|unas)\s(?P<u>{UNIT})\s(?:ago|fa)\b"
    rf"|\bhace\s(?P<n2>{NUMBER}|unos|unas)\s(?P<u2>{UNIT})\b"
)
_PAST_SPANS = {  # (unit, how many back) → expressions
    ("d", 2): r"the day before yesterday|l'altro ieri|altroieri|avantieri|anteayer|antier",
    ("d", 1): r"yesterday|last night|ieri|ieri sera|ayer|anoche",
    ("d", 0): r"this morning|earlier today|stamattina|stamani|questa mattina|esta manana",
    ("weekend", 1): r"last weekend|(?:lo )?scorso (?:fine settimana|weekend)"
    r"|(?:il )?(?:fine settimana|weekend) scorso|(?:el )?fin de semana pasado",
    ("w", 1): r"last week|(?:la )?settimana scorsa|(?:la )?scorsa settimana|(?:la )?semana pasada",
    ("m", 1): r"last month|(?:il )?mese scorso|(?:lo )?scorso mese|(?:el )?mes pasado",
    ("y", 1): r"last year|(?:l')?anno scorso|(?:lo )?scorso anno|(?:el )?ano pasado",
}
_PAST_PATTERNS = [
    (re.compile(rf"\b(?:{regex})\b"), unit, n) for (unit, n), regex in _PAST_SPANS.items()
]
_PAST_WEEKDAY = re.compile(
    rf"\b(?:last|scors[oa]|(?:el|este) pasado) (?P<d>{WEEKDAY})\b"
    rf"|\b(?P<d2>{WEEKDAY}) (?:scorso|pasado)\b"
    rf"|\bon (?P<d3>{WEEKDAY})\b(?= [^.!?]*\b(?:went|was|were|did|had|got|met|saw|came|took))"
)
_PAST_YEAR = re.compile(r"\b(?:in|back in|nel|en(?: el)?) ((?:19|20)\d{2})\b")
_FEW = {"a few": 3, "qualche": 3, "unos": 3, "unas": 3}
_PRECISION = {"h": "day", "d": "day", "w": "week", "m": "month", "y": "year"}


def _back(today: date, unit: str, n: int) -> Happened:
    if unit in "hd":
        return Happened(today - timedelta(days=n if unit == "d" else n // 24), "day")
    if unit == "w":
        return Happened(today - timedelta(weeks=n), "day" if n > 1 else "week")
    if unit == "m":
        return Happened(_add_months(today, -n), "month")
    return Happened(date(today.year - n, today.month, min(today.day, 28)), "year")


def _span_back(today: date, unit: str, n: int) -> Happened:
    """The span ``n`` units before the one ``today`` is in: last week starts on its Monday,
    last month on its first day, last year on 1 January; last weekend is its Saturday."""
    if unit == "weekend":
        return Happened(today - timedelta(days=(today.weekday() - 5) % 7 or 7), "day")
    if unit == "w":
        return Happened(today - timedelta(days=today.weekday() + 7 * n), "week")
    if unit == "m":
        return Happened(_add_months(today.replace(day=1), -n), "month")
    if unit == "y":
        return Happened(date(today.year - n, 1, 1), "year")
    return Happened(today - timedelta(days=n), "day")


def _on_or_before(year: int | None, month: int, day: int | None, today: date) -> date | None:
    """A valid day no later than ``today``: without a year, the latest one that has been."""
    year_ = year or today.year
    if not (1900 <= year_ <= 2200 and 1 <= month <= 12):
        return None
    last = calendar.monthrange(year_, month)[1]
    if day is not None and not 1 <= day <= last:
        return None
    found = date(year_, month, day or 1)
    if found > today:
        return _on_or_before(year_ - 1, month, day, today) if year is None else None
    return found


# Said of what is ahead: the future, a plan, a deadline (en, it, es; folded text, so
# "andrò" reads "andro"). Common future forms only: a suffix rule would take "ahora", "para".
_AHEAD = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|plan(?:ning|s|ned)? (?:to|on)|intend(?:s|ing)? to"
    r"|hope to|aim(?:ing)? to|want to|would like to|need to|have to|deadline|due|scheduled"
    r"|upcoming|next|by|until|before|from now"
    r"|entro|prossim[oaie]|ho intenzione|abbiamo intenzione|pens(?:o|iamo) di|dobbiamo|devo"
    r"|scadenza|andro|andremo|faro|faremo|avro|avremo|saremo"
    r"|voy a|vamos a|va a|van a|pienso|pensamos|tengo que|tenemos que|hasta|antes de"
    r"|para el|plazo|fecha limite|proxim[oa]s?|ire|iremos|hare|haremos|tendre|tendremos)\b"
)


# Said of what has been: a past tense (the common irregular English verbs, a subject and an
# -ed verb, Italian and Spanish compound past).
_LOOKS_BACK = re.compile(
    # "got", but not "I've got" (what one has)
    r"\b(?:was|were|did|had|went|(?<!'ve )(?<!have )got|came|took|made|saw|met|left|bought|sold"
    r"|began|started"
    r"|finished|visited|moved|spent|gave|told|said|found|lost|won|paid|flew|drove|ran)\b"
    r"|\b(?:i|we|he|she|they|you) (?:just |already |finally |recently )?"
    r"(?!(?:need|feed|speed|proceed|exceed|succeed)\b)\w+ed\b"
    r"|\b(?:ho|hai|ha|abbiamo|avete|hanno|sono|sei|siamo|siete) (?:gia |appena )?"
    r"\w+(?:at|ut|it)[oaie]\b"
    r"|\b(?:he|has|ha|hemos|habeis|han) (?:ya )?\w+(?:ad|id)o\b"
    # "è andato in pensione", "è nata": "è" with a verb of coming and going, not a passive
    # ("è fissato per marzo" is a plan).
    r"|\be (?:gia |appena )?(?:andat|venut|partit|nat|mort|arrivat|tornat|uscit|entrat"
    r"|diventat|stat|success|rimast|cadut|guarit|invecchiat)[oaie]\b"
)


def looks_back(folded: str) -> bool:
    """Whether a (folded) statement tells of what has been, in a past tense ("we went
    hiking", "ho venduto la casa", "nos mudamos")."""
    return bool(_LOOKS_BACK.search(folded) or PAST.search(folded))


def looks_ahead(folded: str, time: Temporal | None = None) -> bool:
    """Whether a (folded) statement speaks of what is still to happen: it says so (a
    future, a plan, a deadline), or it names a day ahead (``time``, from ``resolve_time``)
    in no past tense ("I'm getting married in June")."""
    if _AHEAD.search(folded):
        return True
    return time is not None and time.target is not None and not _LOOKS_BACK.search(folded)


def resolve_when(folded: str, observed_at: datetime, *, ahead: bool) -> Happened | None:
    """When the thing a (folded) statement tells of happens or happened, if it says; the
    expression said first wins. A date that names its year means that year, whichever side
    of ``observed_at`` it falls; one without a year is the next such day when the
    statement looks ``ahead`` (a plan, a deadline), else the latest that has been.
    Relative expressions resolve against ``observed_at``: tomorrow, next week, in three
    months; yesterday, last Friday, two weeks ago, ieri, hace tres días. None when it
    names no day (most statements: it happened when said)."""
    today = observed_at.date()
    found = said_back(folded, today)

    def day(year: int | None, month: int, day_: int | None) -> date | None:
        if year is not None:
            return on_day(year, month, day_)
        if ahead:
            return _dated(None, month, day_, today)
        return _on_or_before(None, month, day_, today)

    for m in ISO.finditer(folded):
        if when := on_day(int(m[1]), int(m[2]), int(m[3])):
            found.append((m.start(), Happened(when, "day")))
    for m in NUMERIC.finditer(folded):
        year = int(m[4]) + (2000 if len(m[4]) == 2 else 0)
        if when := on_day(year, int(m[3]), int(m[1])):
            found.append((m.start(), Happened(when, "day")))
    for m in DAY_MONTH.finditer(folded):
        if when := day(int(m[3]) if m[3] else None, MONTHS[m[2]], int(m[1])):
            found.append((m.start(), Happened(when, "day")))
    for m in MONTH_DAY.finditer(folded):
        if when := day(int(m[3]) if m[3] else None, MONTHS[m[1]], int(m[2])):
            found.append((m.start(), Happened(when, "day")))
    # A month alone dates a plan (the next such month) or what is told in a past tense
    # ("we moved to Turin in May": the latest May); "my birthday is in May" names none.
    back = not ahead and looks_back(folded)
    for m in MONTH_ALONE.finditer(folded):
        named = int(m["y"]) if m["y"] else None
        # "by June 15" is the day, read above; "by June", "entro marzo" the month.
        if (named is None and not (ahead or back)) or DAY_AFTER.match(folded, m.end("m")):
            continue
        if ahead or named is not None:
            when = _dated(named, MONTHS[m["m"]], None, today)
        else:
            when = _on_or_before(None, MONTHS[m["m"]], None, today)
        if when:
            found.append((m.start(), Happened(when.replace(day=1), "month")))
    for pattern, how, n in FIXED_PATTERNS:
        if said := pattern.search(folded):
            found.append((said.start(), _ahead_span(how, n, today)))
    found += [(at, Happened(day, "day")) for at, day in days_ahead(folded, today)]
    if ahead:
        for m in WEEKDAY_AHEAD.finditer(folded):
            offset = (WEEKDAYS[m["d"]] - today.weekday() - 1) % 7 + 1
            found.append((m.start(), Happened(today + timedelta(days=offset), "day")))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def still_ahead(happened: Happened | None, observed_at: datetime) -> bool:
    """Whether ``happened`` (its day, or the last day of its span) is not yet over when
    the statement is said: a plan, a deadline, an appointment."""
    if happened is None:
        return False
    first = happened.day
    if happened.precision == "week":
        last = first + timedelta(days=6)
    elif happened.precision == "month":
        last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    elif happened.precision == "year":
        last = date(first.year, 12, 31)
    else:
        last = first
    return last >= observed_at.date()


def on_day(year: int, month: int, day: int | None) -> date | None:
    """The day a date with its year names (its month's first for a month alone)."""
    if not (1900 <= year <= 2200 and 1 <= month <= 12):
        return None
    if day is not None and not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return date(year, month, day or 1)


def _ahead_span(how: str, n: int, today: date) -> Happened:
    """The day or span a fixed expression ahead names: tomorrow, this week, next month."""
    if how == "days":
        return Happened(today + timedelta(days=n), "week" if n == 7 else "day")
    if how == "week_end":
        return Happened(today - timedelta(days=today.weekday()), "week")
    if how == "month_end":
        return Happened(today.replace(day=1), "month")
    if how == "year_end":
        return Happened(date(today.year, 1, 1), "year")
    return Happened(_add_months(today, n).replace(day=1), "year" if n == 12 else "month")


def said_back(folded: str, today: date) -> list[tuple[int, Happened]]:
    """Where each expression of the past is said, and the day or span it names."""
    found: list[tuple[int, Happened]] = []
    for m in re.finditer(_AGO, folded):
        amount, unit = m["n"] or m["n2"], m["u"] or m["u2"]
        n = int(amount) if amount.isdigit() else _FEW.get(amount) or NUMBER_WORDS[amount]
        found.append((m.start(), _back(today, UNITS[unit], n)))
    for pattern, unit, n in _PAST_PATTERNS:
        if said := pattern.search(folded):
            found.append((said.start(), _span_back(today, unit, n)))
    for m in _PAST_WEEKDAY.finditer(folded):
        weekday = WEEKDAYS[m["d"] or m["d2"] or m["d3"]]
        offset = (today.weekday() - weekday - 1) % 7 + 1
        found.append((m.start(), Happened(today - timedelta(days=offset), "day")))
    for m in _PAST_YEAR.finditer(folded):
        if int(m[1]) < today.year:
            found.append((m.start(), Happened(date(int(m[1]), 1, 1), "year")))
    return found
