"""The patterns time expressions are read by (en, it, es), on folded text: spans ahead and
back, fixed expressions, weekdays, dates in any of the usual forms. ``time_expressions``
resolves what they match to calendar days."""

from __future__ import annotations

import re

from memories.services.extraction.normalise import MONTHS, NUMBER, WEEKDAYS, alternation

MONTH = alternation(MONTHS)
WEEKDAY = alternation(WEEKDAYS)


UNITS = {
    **dict.fromkeys(["day", "days", "giorno", "giorni", "dia", "dias"], "d"),
    **dict.fromkeys(["week", "weeks", "settimana", "settimane", "semana", "semanas"], "w"),
    **dict.fromkeys(["month", "months", "mese", "mesi", "mes", "meses"], "m"),
    **dict.fromkeys(["year", "years", "anno", "anni", "ano", "anos"], "y"),
    **dict.fromkeys(["hour", "hours", "ora", "ore", "hora", "horas"], "h"),
}
# A fortnight is two weeks; "una quindicina di giorni", "una quincena" about as long.
FORTNIGHT = {"fortnight": 14, "fortnights": 28, "quindicina di giorni": 15, "quincena": 15}
UNIT = alternation(UNITS)
# "about", "circa", "unos": a span said roughly is still its day.
ROUGHLY = (
    r"(?:(?:about|around|roughly|some|approximately|just over|just under|circa|piu o meno"
    r"|all'incirca|appena|unos|unas|aproximadamente|cerca de|alrededor de|apenas)\s)?"
)
# "a few days", "qualche giorno", "unos dias": three.
A_FEW = {"a few": 3, "qualche": 3, "pochi": 3, "pochissimi": 2, "unos pocos": 3, "unos": 3}
RELATIVE = re.compile(
    r"\b(?:in|within|in the next|over the next|in less than|tra|fra|entro|nei prossimi"
    r"|nelle prossime|in meno di|en|dentro de|en los proximos|en las proximas|en menos de"
    r"|durante los proximos|antes de)\s"
    rf"{ROUGHLY}(?:(?P<n>{NUMBER}|a few|qualche|pochi|unos pocos)\s(?P<u>{UNIT})"
    rf"|(?:a |an |una |un )?(?P<f>{alternation(FORTNIGHT)}))\b"
    # "I have ten days to pay", "ho dieci giorni per", "tengo diez dias para": a deadline.
    r"|\b(?:have|has|got|ho|abbiamo|ha|hanno|tengo|tenemos|tiene|tienen|hay)\s"
    rf"(?:(?P<n3>{NUMBER})\s(?P<u3>{UNIT})|(?:a |an |una |un )?(?P<f3>{alternation(FORTNIGHT)}))"
    r"\s(?:to|left to|per|para)\b"
)
# A day of the month alone, said as a deadline ("scade il 15", "vence el dia 10", "due on
# the 12th"): the next such day.
DAY_OF_MONTH = re.compile(
    r"\b(?:due|by|on|until|payable|scade|scadono|scadenza|entro|vence|vencen|vencimiento"
    r"|hasta|para)\s(?:on\s)?(?:the\s|il\s|el\s)?(?:giorno\s|dia\s)?"
    r"(?P<d>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\b"
    r"(?![.,:/-]?\d|\s*(?:%|percent|per cento|por ciento|euros?|€|\$|k\b|mila|mil\b|years?|"
    r"anni|anos|days?|giorni|dias|weeks?|settimane|semanas|months?|mesi|meses|hours?|ore\b"
    r"|horas|minutes?|minuti|minutos|am\b|pm\b|h\b|of\s|de\s|di\s))"
)
PAST = re.compile(
    r"\b(?:yesterday|last (?:week|month|year|night|weekend)|the other day|ieri|l'altro ieri"
    r"|(?:settimana|mese|anno|weekend) scors[oa]|ayer|anoche|anteayer"
    r"|(?:semana|mes|ano) pasad[oa])\b"
    rf"|\b(?:last|scors[oa]) (?:{WEEKDAY})\b|\b(?:{WEEKDAY}) (?:scorso|pasado)\b"
    rf"|\b(?:{NUMBER})\s(?:{UNIT})\s(?:ago|fa)\b|\bhace\s(?:{NUMBER})\s(?:{UNIT})\b"
)
# (pattern, how to resolve, amount): evaluated in resolve_time.
FIXED = {  # (how to resolve, amount): expressions
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
FIXED_PATTERNS = [(re.compile(rf"\b(?:{regex})\b"), how, n) for (how, n), regex in FIXED.items()]
# Habitual (``los lunes``, ``ogni lunedì``, ``every Monday``) and past weekdays bind nothing.
WEEKDAY_AHEAD = re.compile(
    r"(?<!\blos )(?<!\bil )(?<!\blast )(?<!\bogni )(?<!\bcada )(?<!\bevery )"
    rf"\b(?P<d>{WEEKDAY})\b(?! scorso| pasado)"
)
ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
NUMERIC = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})\b")
DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s(?:of\s|de\s)?({MONTH})\b(?:,?\s(?:de\s|del\s)?(\d{{4}}))?"
)
MONTH_DAY = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november"
    r"|december)\s(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s(\d{4}))?"
)
MONTH_ALONE = re.compile(
    r"\b(?:in|by|until|before|for|per|a|ad|entro|en|para|hasta|antes de|in early|in late"
    r"|(?:the )?end of|fine|a fine|inizio|finales de|principios de)\s"
    rf"(?P<m>{MONTH})\b(?:\s(?:de\s|del\s)?(?P<y>\d{{4}}))?"
)

# After a month, a day ("by june 15"): the day is read, not the month alone.
DAY_AFTER = re.compile(r"\s\d{1,2}(?:st|nd|rd|th)?\b(?!\d)")
