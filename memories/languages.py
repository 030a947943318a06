"""The language of a memory, for full text: detected from its own words, and the PostgreSQL
text search configuration that stems it.

Detection is py3langid (langid.py's naive Bayes over byte n-grams, its model shipped in
the wheel: nothing is downloaded), restricted to the languages memoryhub stems
(``CONFIGS``): a model choosing among seven languages is surer of a short text than one
choosing among ninety-seven. A language is taken when it has at least ``MIN_CONFIDENCE``
of the probability, i.e. it is likelier than all the others together; below that (one or
two words, names, amounts, product codes) the memory is in its tenant's language.
Measured in ``bench/language_detection.py`` (docs/decisions.md).
"""

from __future__ import annotations

import functools
import threading

# ISO 639-1 code → PostgreSQL's Snowball configuration. A language not here is not
# detected; a tenant whose language is ``simple`` stores "" for what it cannot tell.
CONFIGS = {
    "en": "english",
    "it": "italian",
    "es": "spanish",
    "fr": "french",
    "de": "german",
    "pt": "portuguese",
    "nl": "dutch",
}
SIMPLE = "simple"
# The languages a client may be said to speak: those memoryhub reads (ISO 639-1 codes).
CLIENT_LANGUAGES = tuple(CONFIGS)
# Every configuration a memory can be indexed in, in a fixed order (a query's parameters).
ALL_CONFIGS = (*CONFIGS.values(), SIMPLE)
_CODES = {config: code for code, config in CONFIGS.items()}
MIN_CONFIDENCE = 0.5
# Enough of a long text to tell its language; the rest only costs time.
_SAMPLE = 2000

_lock = threading.Lock()


def text_config(language: str) -> str:
    """The configuration that stems a memory of ``language`` (an ISO code, "" for none)."""
    return CONFIGS.get(language, SIMPLE)


def language_name(code: str) -> str:
    """The name of language ``code`` in the active language ("Italian", "italiano"); the
    code itself when it names no language Django knows (a value set before it was checked)."""
    from django.utils.translation import get_language_info

    try:
        return str(get_language_info(code)["name_translated"])
    except KeyError:
        return code


def code_of(config: str) -> str:
    """The ISO code of a configuration: "" for ``simple``."""
    return _CODES.get(config, "")


def config_sql(column: str) -> str:
    """``text_config`` of a language column, in SQL."""
    cases = " ".join(f"WHEN '{code}' THEN '{config}'" for code, config in CONFIGS.items())
    return f"(CASE {column} {cases} ELSE '{SIMPLE}' END)"


@functools.cache
def _identifier():
    # Loaded on first use (about a second, some 75 MB): a process that never writes a
    # memory, or only reads, never pays it.
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(CONFIGS))
    return identifier


def detected(text: str) -> str | None:
    """The ISO code of ``text``'s language, or None when it is too short or too mixed to
    tell (below ``MIN_CONFIDENCE``)."""
    with _lock:  # the model loads once, whichever thread asks first
        identifier = _identifier()
    code, probability = identifier.classify(text[:_SAMPLE])
    return code if probability >= MIN_CONFIDENCE else None


def memory_language(text: str, tenant_config: str) -> str:
    """A memory's language (ISO code): the detected one, else its tenant's."""
    return detected(text) or code_of(tenant_config)
