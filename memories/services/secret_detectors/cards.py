"""Card numbers in any grouping ("4111 1111 1111 1111", "4111.1111.1111.1111",
"5105-1051-0510-5100", "4111111111111111", an Amex's 4-6-5): 13 to 19 digits that pass the
Luhn check, when a card, a charge or a payment is spoken of in the text or the question it
answers, or, said alone, grouped as cards print them and opening as a card network's do.

Phone, account and policy numbers of the same length pass Luhn one time in ten: a number
named as one of those, or inside an IBAN, is not a card's."""

from __future__ import annotations

import re

from stdnum import iban, luhn

_GROUPS = re.compile(r"(?<![\w+])\d+(?:[ .\-]\d+)*(?!\w)")
_SEPARATOR = re.compile(r"[ .\-]")
CARD_WORDS = re.compile(
    r"\b(?:cards?|cart[ae]|tarjetas?|visa|master ?card|amex|american express|maestro|"
    r"discover|diners|debit|d[ée]bito|credit|cr[ée]dito|bancomat|postepay|charg|pay|paid|"
    r"pag|addebit|carg|c[áa]rg|cobr|deposit|exp(?:iry|ires?)?\b|scad|caduc|venc|cvv|cvc)",
    re.IGNORECASE,
)
# A number so named is not a card's: "account 4000…", "policy no. …", "call me on …".
_NAMED_OTHERWISE = re.compile(
    r"\b(?:account|acct|conto|cuenta|iban|policy|polizza|p[óo]liza|reference|ref|"
    r"riferimento|referencia|order|ordine|pedido|invoice|fattura|factura|tracking|phone|"
    r"tel|mobile|cellulare|m[óo]vil|tel[ée]fono|case|pratica|expediente|n[ºo°]\.?)"
    r"\W+(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]){11,30}\b", re.IGNORECASE)


def card_numbers(text: str, *, spoken_of: bool) -> list[tuple[int, int]]:
    """Where card numbers are in ``text``; ``spoken_of``: a card or a payment is (in the
    text or the question it answers)."""
    if not any(c.isdigit() for c in text):
        return []
    spoken_of = spoken_of or bool(CARD_WORDS.search(text))
    ibans = [
        (m.start(), m.end())
        for m in _IBAN.finditer(text)
        if iban.is_valid(re.sub(r"[ -]", "", m.group()))
    ]
    found = []
    for m in _GROUPS.finditer(text):
        if sum(c.isdigit() for c in m.group()) < 13:
            continue
        if any(a <= m.start() < b for a, b in ibans):
            continue
        for start, end in _windows(m.group(), m.start()):
            number = re.sub(r"\D", "", text[start:end])
            if not luhn.is_valid(number) and not _said_as_a_card(text, start, end):
                continue
            if _NAMED_OTHERWISE.search(text[max(0, start - 40) : start]):
                continue
            if spoken_of or _printed_as_a_card(text[start:end], number):
                found.append((start, end))
                break
    return found


def _said_as_a_card(text: str, start: int, end: int) -> bool:
    """A number that fails the Luhn check (mistyped, or made up for a test) is still a
    card's when it is grouped as cards print them and a card is named just before it: "la
    tarjeta es 4000 1234 5678 9010"."""
    groups = [len(g) for g in _SEPARATOR.split(text[start:end])]
    near = text[max(0, start - 30) : start]
    return groups in ([4, 4, 4, 4], [4, 6, 5]) and bool(_CARD_NAMED.search(near))


_CARD_NAMED = re.compile(r"\b(?:cards?|cart[ae]|tarjetas?|visa|master ?card|amex)\b", re.I)


def _windows(run: str, offset: int) -> list[tuple[int, int]]:
    """The spans of 13 to 19 digits in a run of groups with one separator, longest first:
    "4111 1111 1111 1111 04" holds the card of its first four groups."""
    groups = [(m.start(), m.end()) for m in re.finditer(r"\d+", run)]
    separators = {run[e] for (_, e) in groups[:-1]}
    spans = []
    for i in range(len(groups)):
        count = 0
        for j in range(i, len(groups)):
            count += groups[j][1] - groups[j][0]
            if count > 19:
                break
            between = {run[groups[k][1]] for k in range(i, j)}
            if len(between) > 1:
                break
            if count >= 13:
                spans.append((offset + groups[i][0], offset + groups[j][1], count))
    del separators
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    return [(a, b) for a, b, _ in spans]


def _printed_as_a_card(said: str, number: str) -> bool:
    """Grouped as cards print them (4-4-4-4, Amex 4-6-5) and opening as a network's numbers
    do (Visa 4, Mastercard 51–55 and 2221–2720, Amex 34 and 37, Discover 6011 and 65)."""
    groups = [len(g) for g in _SEPARATOR.split(said)]
    printed = groups == [4, 4, 4, 4] or groups == [4, 6, 5]
    network = (
        number.startswith("4")
        or 51 <= int(number[:2]) <= 55
        or 2221 <= int(number[:4]) <= 2720
        or number[:2] in ("34", "37", "65")
        or number.startswith("6011")
    )
    return printed and network
