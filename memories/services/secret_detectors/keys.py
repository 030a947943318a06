"""Cloud and service keys, whole: a PEM private key from its BEGIN line to its END line, a
JSON Web Token, a bearer token, the formats providers publish (detect-secrets' detectors:
AWS, GitHub, GitLab, Slack, Stripe, …; OpenAI's and Anthropic's newer keys), and a long
random string in a sentence that speaks of a key, a token or a secret (an AWS secret
access key beside its key id, "the token is abc123def456ghi789jkl")."""

from __future__ import annotations

import re
from functools import cache

from memories.services.secret_detectors.values import key_like

_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
_JWT = re.compile(r"\beyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*")
_BEARER = re.compile(r"\bbearer\s+(?P<value>[\w.~+/=-]{16,})", re.IGNORECASE)
# Provider key formats detect-secrets does not know (OpenAI's and Anthropic's newer keys).
_KEY_FORMATS = re.compile(r"\b(?:sk|rk|pk)-(?:[a-z]+-)*[A-Za-z0-9_-]{20,}")
# A sentence that speaks of keys: a long random string in it is one.
# The words may be joined by "_" as in a configuration line ("aws_secret_access_key = …").
_KEY_WORDS = re.compile(
    r"(?<![^\W_])(?:keys?|tokens?|secrets?|secreta|chiave|clave|credentials?|credenziali|"
    r"credenciales|api|aws|bearer|auth)(?![^\W_])",
    re.IGNORECASE,
)
# A long string that may be a key, not part of a dotted name, a path or an address
# ("cv2.VideoCapture", "https://…/v13.0/me", "localhost:5000/…").
_LONG = re.compile(r"(?<![\w/+=.:@~-])[\w/+=-]{16,}(?![\w/+=~:@(-]|\.\w)")
# How near the word for a key the string is said, on its line: "the secret is …", "…, that's
# the token"; a long message that speaks of keys somewhere says no key anywhere else.
_NEAR = 60
# detect-secrets' detectors of published formats (its entropy, keyword and IP detectors
# are made for source code: in prose they take words and numbers for secrets).
_NOT_FOR_PROSE = {
    "Base64HighEntropyString",
    "HexHighEntropyString",
    "KeywordDetector",
    "IPPublicDetector",
}


def keys(text: str, *, asked: str = "") -> list[tuple[int, int]]:
    """Where keys and tokens are in ``text``; ``asked``: the turn before it, which may speak
    of the key that ``text`` gives ("… serve un token generato dal tuo lato." then "Te lo
    leggo: …"): a long random string anywhere in ``text`` is one then."""
    found = [(m.start(), m.end()) for m in _PEM.finditer(text)]
    found += [(m.start(), m.end()) for m in _JWT.finditer(text)]
    found += [
        (m.start("value"), m.end("value"))
        for m in _BEARER.finditer(text)
        if key_like(m.group("value")) or _JWT.match(m.group("value"))
    ]  # not "Bearer YOUR_ACCESS_TOKEN"
    found += [(m.start(), m.end()) for m in _KEY_FORMATS.finditer(text)]
    found += _published(text)
    named = [(m.start(), m.end()) for m in _KEY_WORDS.finditer(text)]
    spoken_of = bool(asked) and bool(_KEY_WORDS.search(_last_sentence(asked)))
    for m in _LONG.finditer(text) if named or spoken_of else ():
        value = m.group().strip("-")
        start = m.start() + m.group().index(value)
        end = start + len(value)
        if value.startswith("/"):
            continue  # a path: "/api/messages/999"
        near = spoken_of or _near(text, start, end, named)
        if near and key_like(value) and not _an_iban(value):
            found.append((start, end))
    return found


def _last_sentence(turn: str) -> str:
    return re.split(r"(?<=[.!?])\s+|\n", turn.rstrip()[-300:])[-1]


def _near(text: str, start: int, end: int, named: list[tuple[int, int]]) -> bool:
    for a, b in named:
        between = text[b:start] if b <= start else text[end:a]
        if len(between) <= _NEAR and "\n" not in between:
            return True
    return False


def _an_iban(value: str) -> bool:
    """An IBAN is long, mixed, and no secret."""
    from stdnum import iban

    return value[:2].isalpha() and value[:2].isupper() and iban.is_valid(value)


def _published(text: str) -> list[tuple[int, int]]:
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
        found.append((start, end))
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
