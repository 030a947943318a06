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
    alternation,
)

_MONTH = alternation(MONTHS)
_WEEKDAY = alternation(WEEKDAYS)


@dataclass(frozen=True)
class Temporal:
    until: datetime | None  # end of the furthest future day mentioned
    target: date | None  # that day
    past: bool  # looks back (yesterday, last week, tre anni fa) and names no future day


_UNITS = {
    **dict.fromkeys(["day", "days", "giorno", "giorni", "dia", "dias"], "d"),
    **dict.fromkeys(["week", "weeks", "settimana", "settimane", "semana", "semanas"], "w"),
    **dict.fromkeys(["month", "months", "mese", "mesi", "mes", "meses"], "m"),
    **dict.fromkeys(["year", "years", "anno", "anni", "ano", "anos"], "y"),
    **dict.fromkeys(["hour", "hours", "ora", "ore", "hora", "horas"], "h"),
}
_UNIT = alternation(_UNITS)
_RELATIVE = re.compile(
    r"\b(?:in|within|in the next|over the next|tra|fra|entro|nei prossimi|nelle prossime|en"
    r"|dentro de|en los proximos|en las proximas|durante los proximos)\s"
    rf"(?P<n>{NUMBER})\s(?P<u>{_UNIT})\b"
)
_PAST = re.compile(
    r"\b(?:yesterday|last (?:week|month|year|night|weekend)|the other day|ieri|l'altro ieri"
    r"|(?:settimana|mese|anno|weekend) scors[oa]|ayer|anoche|anteayer"
    r"|(?:semana|mes|ano) pasad[oa])\b"
    rf"|\b(?:last|scors[oa]) (?:{_WEEKDAY})\b|\b(?:{_WEEKDAY}) (?:scorso|pasado)\b"
    rf"|\b(?:{NUMBER})\s(?:{_UNIT})\s(?:ago|fa)\b|\bhace\s(?:{NUMBER})\s(?:{_UNIT})\b"
)
# (pattern, how to resolve, amount): evaluated in resolve_time.
_FIXED = {  # (how to resolve, amount): expressions
    ("days", 2): r"the day after tomorrow|dopodomani|pasado manana",
    ("days", 0): r"today|tonight|this (?:morning|afternoon|evening)|oggi|stasera|stamattina"
    r"|stanotte|hoy|esta (?:noche|tarde|manana)",
    # "mañana" is tomorrow, but "por la mañana" / "las mañanas" is the morning.
    ("days", 1): r"tomorrow|domani|(?<!\bla )(?<!\blas )(?<!\besta )(?<!\bpasado )"
    r"(?<!\bcada )(?<!\bde )manana",
    ("week_end", 0): r"this week|questa settimana|esta semana",
    ("days", 7): r"next week|prossima settimana|settimana prossima|proxima semana"
    r"|semana que viene|semana proxima",
    ("month_end", 0): r"(?:the )?end of (?:the |this )?month|fine (?:del )?mese"
    r"|fin(?:ales)? de(?:l)? mes|this month|questo mese|este mes",
    ("months", 1): r"next month|mese prossimo|prossimo mese|mes que viene|proximo mes|mes proximo",
    ("year_end", 0): r"(?:the )?end of (?:the |this )?year|fine (?:dell')?anno"
    r"|fin(?:ales)? de(?:l)? ano|this year|quest'anno|este ano",
    ("months", 12): r"next year|anno prossimo|prossimo anno|ano que viene|proximo ano|ano proximo",
}
_FIXED_PATTERNS = [(re.compile(rf"\b(?:{regex})\b"), how, n) for (how, n), regex in _FIXED.items()]
# Habitual (``los lunes``, ``ogni lunedì``, ``every Monday``) and past weekdays bind nothing.
_WEEKDAY_AHEAD = re.compile(
    r"(?<!\blos )(?<!\bil )(?<!\blast )(?<!\bogni )(?<!\bcada )(?<!\bevery )"
    rf"\b(?P<d>{_WEEKDAY})\b(?! scorso| pasado)"
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_NUMERIC = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})\b")
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s(?:of\s|de\s)?({_MONTH})\b(?:,?\s(?:de\s|del\s)?(\d{{4}}))?"
)
_MONTH_DAY = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november"
    r"|december)\s(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s(\d{4}))?"
)
_MONTH_ALONE = re.compile(
    r"\b(?:in|by|until|before|for|per|a|ad|entro|en|para|hasta|antes de|in early|in late"
    r"|(?:the )?end of|fine|a fine|inizio|finales de|principios de)\s"
    rf"(?P<m>{_MONTH})\b(?:\s(?:de\s|del\s)?(?P<y>\d{{4}}))?"
)


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


def resolve_time(folded: str, observed_at: datetime) -> Temporal:
    """The furthest future day a (folded) statement is bound to, and whether it looks back."""
    today = observed_at.date()
    targets: list[date | None] = [
        _fixed(how, n, today) for pattern, how, n in _FIXED_PATTERNS if pattern.search(folded)
    ]
    for m in _RELATIVE.finditer(folded):
        n = int(m["n"]) if m["n"].isdigit() else NUMBER_WORDS[m["n"]]
        targets.append(_relative(n, _UNITS[m["u"]], today))
    for m in _WEEKDAY_AHEAD.finditer(folded):
        targets.append(today + timedelta(days=(WEEKDAYS[m["d"]] - today.weekday() - 1) % 7 + 1))
    for m in _ISO.finditer(folded):
        targets.append(_dated(int(m[1]), int(m[2]), int(m[3]), today))
    for m in _NUMERIC.finditer(folded):
        year = int(m[4]) + (2000 if len(m[4]) == 2 else 0)
        targets.append(_dated(year, int(m[3]), int(m[1]), today))
    for m in _DAY_MONTH.finditer(folded):
        targets.append(_dated(int(m[3]) if m[3] else None, MONTHS[m[2]], int(m[1]), today))
    for m in _MONTH_DAY.finditer(folded):
        targets.append(_dated(int(m[3]) if m[3] else None, MONTHS[m[1]], int(m[2]), today))
    for m in _MONTH_ALONE.finditer(folded):
        targets.append(_dated(int(m["y"]) if m["y"] else None, MONTHS[m["m"]], None, today))
    target = max((t for t in targets if t is not None and t >= today), default=None)
    if target is None:
        return Temporal(until=None, target=None, past=bool(_PAST.search(folded)))
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
    rf"\b(?P<n>{NUMBER}|a few|a couple of|qualche|unos|unas)\s(?P<u>{_UNIT})\s(?:ago|fa)\b"
    rf"|\bhace\s(?P<n2>{NUMBER}|unos|unas)\s(?P<u2>{_UNIT})\b"
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
    rf"\b(?:last|scors[oa]|(?:el|este) pasado) (?P<d>{_WEEKDAY})\b"
    rf"|\b(?P<d2>{_WEEKDAY}) (?:scorso|pasado)\b"
    rf"|\bon (?P<d3>{_WEEKDAY})\b(?= [^.!?]*\b(?:went|was|were|did|had|got|met|saw|came|took))"
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


def resolve_past(folded: str, observed_at: datetime) -> Happened | None:
    """When what a (folded) statement tells of happened, if it says: yesterday, last
    Friday, two weeks ago, last month, ieri, la settimana scorsa, el mes pasado, hace tres
    días, a date that has passed… resolved against ``observed_at``; the expression said
    first wins. None when it names no past day (most statements: it happened when said)."""
    today = observed_at.date()
    found: list[tuple[int, Happened]] = []
    for m in re.finditer(_AGO, folded):
        amount, unit = m["n"] or m["n2"], m["u"] or m["u2"]
        n = int(amount) if amount.isdigit() else _FEW.get(amount) or NUMBER_WORDS[amount]
        found.append((m.start(), _back(today, _UNITS[unit], n)))
    for pattern, unit, n in _PAST_PATTERNS:
        if said := pattern.search(folded):
            found.append((said.start(), _span_back(today, unit, n)))
    for m in _PAST_WEEKDAY.finditer(folded):
        weekday = WEEKDAYS[m["d"] or m["d2"] or m["d3"]]
        found.append(
            (
                m.start(),
                Happened(today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1), "day"),
            )
        )
    for m in _ISO.finditer(folded):
        if day := _on_or_before(int(m[1]), int(m[2]), int(m[3]), today):
            found.append((m.start(), Happened(day, "day")))
    for m in _DAY_MONTH.finditer(folded):
        if day := _on_or_before(int(m[3]) if m[3] else None, MONTHS[m[2]], int(m[1]), today):
            found.append((m.start(), Happened(day, "day")))
    for m in _MONTH_DAY.finditer(folded):
        if day := _on_or_before(int(m[3]) if m[3] else None, MONTHS[m[1]], int(m[2]), today):
            found.append((m.start(), Happened(day, "day")))
    for m in _PAST_YEAR.finditer(folded):
        if int(m[1]) < today.year:
            found.append((m.start(), Happened(date(int(m[1]), 1, 1), "year")))
    return min(found, key=lambda pair: pair[0])[1] if found else None
