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
_KEY_WORDS = re.compile(
    r"\b(?:keys?|tokens?|secrets?|secreta|chiave|clave|credential|credenziali|credenciales|"
    r"api|aws|bearer|auth)\b",
    re.IGNORECASE,
)
_LONG = re.compile(r"[\w/+=.~-]{16,}")
# detect-secrets' detectors of published formats (its entropy, keyword and IP detectors
# are made for source code: in prose they take words and numbers for secrets).
_NOT_FOR_PROSE = {
    "Base64HighEntropyString",
    "HexHighEntropyString",
    "KeywordDetector",
    "IPPublicDetector",
}


def keys(text: str) -> list[tuple[int, int]]:
    """Where keys and tokens are in ``text``."""
    found = [(m.start(), m.end()) for m in _PEM.finditer(text)]
    found += [(m.start(), m.end()) for m in _JWT.finditer(text)]
    found += [(m.start("value"), m.end("value")) for m in _BEARER.finditer(text)]
    found += [(m.start(), m.end()) for m in _KEY_FORMATS.finditer(text)]
    found += _published(text)
    if _KEY_WORDS.search(text):
        for m in _LONG.finditer(text):
            value = m.group().strip(".-")
            if key_like(value) and not _an_iban_or_code(value):
                start = m.start() + m.group().index(value)
                found.append((start, start + len(value)))
    return found


def _an_iban_or_code(value: str) -> bool:
    """An IBAN or a tax code is long, mixed, and no secret."""
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
