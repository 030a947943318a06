"""Secrets said in conversation, kept out of memory; account numbers kept in, but not sent
out.

A person tells an assistant their password, a PIN, a card number with its security code, or
pastes an API key. None of it is anything an advisor or an agent needs remembered, and every
copy is a liability: ``withheld`` finds them in an event's text before anything is
extracted, stored, embedded or sent to a model, and puts a placeholder in their place
("[password withheld]"). What is found:

- **passwords, PINs and security codes** said with their name, in English, Italian and
  Spanish ("my password is …", "il PIN è …", "mi contraseña es …", "CVV: …"): the word
  after the name;
- **card numbers**: 13 to 19 digits (spaces or dashes between groups) that pass the Luhn
  check (``python-stdnum``), in a sentence that speaks of a card or gives a security code
  or an expiry (a long number alone may be a phone number or an account);
- **API keys and tokens**: detect-secrets' detectors for the formats providers publish
  (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, JWT, private key blocks, credentials in a
  URL, …; not its entropy or keyword heuristics, which are made for source code), and
  keys said with their name ("my API key is …").

IBANs and account numbers are what advisors work with: they stay. ``accounts_masked`` hides
them (``[IBAN]``, ``[account number]``) where text leaves memoryhub for someone else: a
webhook's payload and a remote embedding provider, unless the tenant allows it
(``Tenant.account_numbers_shared``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from stdnum import iban, luhn

PLACEHOLDERS = {
    "password": "[password withheld]",
    "pin": "[PIN withheld]",
    "security_code": "[security code withheld]",
    "card": "[card number withheld]",
    "api_key": "[API key withheld]",
}

# The value said after its name: up to the next space, without the punctuation that ends
# the sentence around it.
_VALUE = r"[\"'“‘«]?(?P<value>[^\s\"'”’»]+?)[\"'”’»]?(?=[.,;:!?)]*(?:\s|$))"
# "is" and its kin are whole words ("the password reset", "the token expires" say none).
# The name and its value are on one line ("# the access token" above a line of code is not
# a token said).
_IS = r"(?:[ \t]*[:=][ \t]*|'s[ \t]+|[ \t]+(?:(?:is|was|sarebbe|es|era|sería)\b|è|e'|é)[ \t]*)"
_NAMED = [
    (
        "password",
        r"pass(?:word|code|phrase)|pwd|parola d'ordine|contrase(?:ñ|n)a|clave(?! api)",
    ),
    ("pin", r"pin(?: code| number)?|codice pin|c(?:ó|o)digo pin|numero pin"),
    (
        "security_code",
        r"cvv2?|cvc2?|security code|codice di sicurezza|c(?:ó|o)digo de seguridad",
    ),
    (
        "api_key",
        r"api[ -]?key|api token|access token|secret key|chiave api|clave api|token api",
    ),
]
# A few words may come between the name and its value ("the password for the wifi is …",
# "il PIN del bancomat è …"); a PIN or a security code may follow its name directly
# ("CVV 123").
_BETWEEN = r"(?:[ \t]+[\w']+\b){0,3}?"
_NAMED_PATTERNS = [
    (kind, re.compile(rf"\b(?:{names}){_BETWEEN}{_IS}{_VALUE}", re.IGNORECASE))
    for kind, names in _NAMED
] + [
    (kind, re.compile(rf"\b(?:{names})\s+(?P<value>\d{{3,8}})\b", re.IGNORECASE))
    for kind, names in _NAMED
    if kind in ("pin", "security_code")
]
# Code that computes the value ("password = hash(raw)", "token = tokens[0]") or a template
# that stands for it ("{token}", "${{ secrets.KEY }}").
_COMPUTED = re.compile(r"[\w.$]+[(\[]|[{$]")
_CARD_NUMBER = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_CARD_WORDS = re.compile(
    r"\b(?:card|carta|tarjeta|visa|mastercard|amex|american express|maestro|"
    r"debit|credit|cr(?:é|e)dito|d(?:é|e)bito|bancomat|expir|scad|caduc|venc)",
    re.IGNORECASE,
)
_EXPIRY = re.compile(r"\b(?:0[1-9]|1[0-2])\s?/\s?(?:\d{2}|20\d{2})\b")
# Provider key formats detect-secrets does not know (OpenAI's and Anthropic's newer keys).
_KEY_FORMATS = re.compile(r"\b(?:sk|rk|pk)-(?:[a-z]+-)*[A-Za-z0-9_-]{20,}")
# An IBAN as people write it: any case, its groups apart by spaces, by dashes or not at all
# ("it60x0542…", "GB82-WEST-1234-…"). ASCII classes: with IGNORECASE, [A-Z] would also take
# "ſ" and "K", and \d any script's digits.
_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}")
_IBAN_REST = re.compile(r"(?:[\s-]?[A-Za-z0-9]){11,30}")
_IBAN_SEPARATOR = re.compile(r"[\s-]")
_ACCOUNT = re.compile(
    r"\b(?:account(?: number| no\.?)?|conto(?: corrente)?|n(?:umero)? di conto|"
    r"cuenta|n(?:ú|u)mero de cuenta)\s*(?:is|è|es|:|n\.?|nº)?\s*(?P<value>\d[\d -]{5,}\d)",
    re.IGNORECASE,
)
# detect-secrets' detectors of published formats (its entropy, keyword and IP detectors
# are made for source code: in prose they take words and numbers for secrets).
_NOT_FOR_PROSE = {
    "Base64HighEntropyString",
    "HexHighEntropyString",
    "KeywordDetector",
    "IPPublicDetector",
}


@dataclass(frozen=True)
class Secret:
    kind: str  # a key of PLACEHOLDERS
    start: int
    end: int


def secrets_in(text: str) -> list[Secret]:
    """The secrets ``text`` holds, in order, none overlapping."""
    found: list[Secret] = []
    for kind, pattern in _NAMED_PATTERNS:
        for m in pattern.finditer(text):
            value = m.group("value")
            if not any(c.isalnum() for c in value) or _COMPUTED.match(value):
                continue  # punctuation, a template's braces, a call: not a value said
            if kind == "pin" and not any(c.isdigit() for c in value):
                continue  # "the PIN is on the back": no PIN said
            if _a_word_of_the_sentence(value):
                continue  # "the password is something I need to change"
            found.append(Secret(kind, m.start("value"), m.end("value")))
    carded = (
        _CARD_WORDS.search(text)
        or _EXPIRY.search(text)
        or any(s.kind == "security_code" for s in found)
    )
    if carded:
        for m in _CARD_NUMBER.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if luhn.is_valid(digits):
                found.append(Secret("card", m.start(), m.end()))
    for m in _KEY_FORMATS.finditer(text):
        found.append(Secret("api_key", m.start(), m.end()))
    found += _published_keys(text)
    return _apart(found)


# Words that follow "the password is" in a sentence that says no password.
_NOT_VALUES = {
    "something", "anything", "nothing", "what", "whatever", "different", "new", "old", "same",
    "wrong", "right", "correct", "easy", "hard", "long", "short", "weak", "strong", "secure",
    "safe", "changed", "expired", "required", "needed", "missing", "forgotten", "lost", "set",
    "saved", "stored", "written", "qualcosa", "diversa", "nuova", "vecchia", "sbagliata",
    "giusta", "scaduta", "algo", "distinta", "nueva", "vieja", "incorrecta", "correcta",
}  # fmt: skip


def _a_word_of_the_sentence(value: str) -> bool:
    """A plain word of the language rather than a value: grammar, or what one says of a
    password ("new", "wrong", "something")."""
    from memories.services.extraction.clauses import STOPWORDS

    word = value.casefold()
    return value.isalpha() and (word in STOPWORDS or word in _NOT_VALUES)


def withheld(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with each secret replaced by its placeholder, and the kinds found."""
    found = secrets_in(text)
    if not found:
        return text, ()
    parts, at = [], 0
    for secret in found:
        parts += [text[at : secret.start], PLACEHOLDERS[secret.kind]]
        at = secret.end
    parts.append(text[at:])
    return "".join(parts), tuple(dict.fromkeys(s.kind for s in found))


def accounts_masked(text: str) -> str:
    """``text`` with IBANs and account numbers replaced, for where it goes out."""
    text = _ibans_masked(text)
    return _ACCOUNT.sub(lambda m: m.group().replace(m.group("value"), "[account number]"), text)


def _ibans_masked(text: str) -> str:
    parts, at = [], 0
    for head in _IBAN_HEAD.finditer(text):
        if head.start() < at:
            continue  # inside an IBAN masked already
        if (end := _iban_end(text, head.start(), head.end())) is not None:
            parts += [text[at : head.start()], "[IBAN]"]
            at = end
    parts.append(text[at:])
    return "".join(parts)


def _iban_end(text: str, start: int, after_head: int) -> int | None:
    """Where the IBAN that starts at ``start`` ends, if one does. The text alone does not
    say (the words after it are letters and digits too: "… 7654 32 for rent"), so each end
    at the edge of a group is tried, the longest first, and the checksum decides."""
    rest = _IBAN_REST.match(text, after_head)
    if rest is None:
        return None
    for end in range(rest.end(), after_head, -1):
        edge = end == len(text) or not text[end].isascii() or not text[end].isalnum()
        if not edge or _IBAN_SEPARATOR.match(text, end - 1):
            continue
        if iban.is_valid(_IBAN_SEPARATOR.sub("", text[start:end])):
            return end
    return None


def _apart(found: list[Secret]) -> list[Secret]:
    """In order of where they start; of two that overlap, the longer."""
    kept: list[Secret] = []
    for secret in sorted(found, key=lambda s: (s.start, -(s.end - s.start))):
        if kept and secret.start < kept[-1].end:
            if secret.end > kept[-1].end:
                kept[-1] = Secret(kept[-1].kind, kept[-1].start, secret.end)
            continue
        kept.append(secret)
    return kept


def _published_keys(text: str) -> list[Secret]:
    """detect-secrets' findings, each as the whole token it sits in."""
    from detect_secrets.core.scan import scan_line

    _configured()
    found = []
    for potential in scan_line(text):
        value = potential.secret_value or ""
        at = text.find(value) if value else -1
        if at < 0:
            continue
        start, end = at, at + len(value)
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and not text[end].isspace():
            end += 1
        while end > start and text[end - 1] in ".,;:!?)\"'":
            end -= 1
        found.append(Secret("api_key", start, end))
    return found


@cache
def _configured() -> None:
    """detect-secrets set up once with our detectors: nothing else in the process uses it,
    and setting it up for each text (``transient_settings``) cost four times the scan."""
    from detect_secrets.settings import configure_settings_from_baseline

    configure_settings_from_baseline({"plugins_used": _plugins()})


@cache
def _plugins() -> list[dict]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins: list[type] = list(get_mapping_from_secret_type_to_class().values())
    names = {plugin.__name__ for plugin in plugins}
    return [{"name": name} for name in sorted(names - _NOT_FOR_PROSE)]
