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

from stdnum import iban

from memories.services.secret_detectors.answers import (
    answered,
    answered_within,
    asked_for,
    could_answer,
)
from memories.services.secret_detectors.cards import card_numbers
from memories.services.secret_detectors.keys import keys
from memories.services.secret_detectors.named import named
from memories.services.secret_detectors.names import NAME
from memories.services.secret_detectors.values import vocabulary, words_of

PLACEHOLDERS = {
    "password": "[password withheld]",
    "pin": "[PIN withheld]",
    "security_code": "[security code withheld]",
    "code": "[code withheld]",
    "card": "[card number withheld]",
    "api_key": "[API key withheld]",
}
_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS.values()))
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


@dataclass(frozen=True)
class Secret:
    kind: str  # a key of PLACEHOLDERS
    start: int
    end: int


def secrets_in(text: str, *, asked: str = "") -> list[Secret]:
    """The secrets ``text`` holds, in order, none overlapping; ``asked``: the turn before
    it in its session, which may ask for the secret that ``text`` gives."""
    held = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
    found = [Secret(f.kind, f.start, f.end) for f in named(text, held) + answered_within(text)]
    wanted = asked_for(asked) if asked else None
    if wanted is not None:
        found += [Secret(f.kind, f.start, f.end) for f in answered(text, *wanted)]
    coded = any(s.kind == "security_code" for s in found) or (
        wanted is not None and wanted[0] in ("card", "security_code")
    )
    found += [Secret("card", a, b) for a, b in card_numbers(text, spoken_of=coded)]
    found += [Secret("api_key", a, b) for a, b in keys(text, asked=asked)]
    return _apart([s for s in found if not any(a <= s.start < b for a, b in held)])


def withheld(text: str, *, asked: str = "") -> tuple[str, tuple[str, ...]]:
    """``text`` with each secret replaced by its placeholder, and the kinds found."""
    found = secrets_in(text, asked=asked)
    if not found:
        return text, ()
    parts, at = [], 0
    for secret in found:
        parts += [text[at : secret.start], PLACEHOLDERS[secret.kind]]
        at = secret.end
    parts.append(text[at:])
    return "".join(parts), tuple(dict.fromkeys(s.kind for s in found))


# Words that say which secret it was, and so nothing once it is withheld: "my debit card
# PIN", "la password dell'home banking", "la clave de la banca online".
_OF_THE_SECRET = vocabulary(
    """
    card debit credit visa mastercard amex bank banking online home portal app site
    login account new old wifi number expiry expires exp valid until code access user
    username carta bancomat banca conto numero scadenza scade nuova nuovo codice accesso
    utente tarjeta cajero cuenta banco numero caduca caducidad nueva nuevo codigo acceso
    usuario that's it's questa questo quella esa ese esta este
    """
)


def only_a_secret(sentence: str) -> bool:
    """The sentence says nothing but a secret that was withheld ("password: [password
    withheld]", "Il PIN del bancomat è [PIN withheld].", "[password withheld] is my new
    password, by the way."): fewer than two words are left that are neither grammar, nor
    the secret's name, nor what says which secret it was. Such a sentence is no memory."""
    from memories.services.extraction.clauses import STOPWORDS

    if not _PLACEHOLDER.search(sentence):
        return False
    rest = NAME.sub(" ", _PLACEHOLDER.sub(" ", sentence))
    told = [
        w.folded
        for w in words_of(rest)
        if any(c.isalpha() for c in w.core)
        and len(w.core) > 1
        and w.folded not in STOPWORDS
        and w.folded not in _OF_THE_SECRET
    ]
    return len(told) < 2


def may_answer(text: str) -> bool:
    """Whether ``text`` could give a secret that the turn before it asked for: only then
    is that turn read from the database when it is not at hand."""
    return could_answer(text)


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
