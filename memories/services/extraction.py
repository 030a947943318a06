"""Zero-cost heuristic extraction of atomic memories from one event (English, Italian, Spanish).

No model, no network: sentences and clauses, the cue tables of ``extraction_patterns`` and the
time expressions of ``normalise``. It favours precision: a sentence that matches no cue yields
nothing, so greetings, thanks, requests and questions fall away by construction.

Rules
- Speakers: an assistant speaker (``ASSISTANT_SPEAKERS``, any case) yields nothing unless
  ``include_assistant``, whatever the source. Any other speaker is extracted, but third-person
  cues ("she prefers", "il cliente preferisce") count only when the speaker is not the client
  ("user", "client", "customer"): from the client, "she" is somebody else.
- Sentences split on . ! ? … ; and line breaks, not after abbreviations, initials or inside
  decimals; clauses split on commas, colons and and/but/so/e/ma/y/pero… only when both sides
  match a cue on their own. A question yields nothing but the non-final, non-interrogative
  clauses before it ("I moved to Zurich last month, can you update my address?"). A run-on of
  more than 600 characters is not an atomic statement and is skipped.
- Precedence: procedure, own decision, relationship (a clause opening "my wife…", "mi
  hijo…"), reported decision, constraint, goal, preference, fact. No cue but a future day: an
  episodic event; no cue but a past reference: a past episodic event. A request ("I'd like to
  know…", "vorrei fissare…") yields nothing.
- Kinds: procedure → procedural; decision → decision (category ""); event → episodic/event;
  the rest semantic/<category>. A move or new job with a future day ("we move to Lugano next
  month") is an event, not yet a fact. ``source="decision"``: every statement is kind
  decision and keeps its preference/fact/goal/constraint category. ``source="tool"`` or
  ``"observation"``: every statement is kind operational, category "event" when it names a
  day after today, else "fact".
- Expiry (``normalise`` resolves the days): goals, constraints and future events last until
  the end of the furthest day they name, or forever when they name none; operational memories
  likewise but never less than 24 hours. Preferences, facts, relationships, procedures,
  decisions and past events never expire.
- Confidence: 0.9 first-person facts, decisions, constraints, relationships; 0.85 first-person
  preferences, goals, procedures; 0.8 events and tool output; 0.75 reported in the third
  person; at most 0.7 from an assistant; 0.55 hedged (maybe, I think, forse, quizás…); 0.05
  less when lifted out of a question.
- Importance: decision, constraint 0.8; relationship, goal, procedure 0.7; fact 0.6 (0.7 with
  a well-known attribute); event 0.5; preference 0.4 (0.6 for how and when to contact,
  language, reporting, risk); operational 0.3; 0.1 more when an amount is at stake.
- attribute/value, for contradiction detection; values folded and canonical across languages:
  preferences and decisions: language (ISO code), report_frequency, meeting_time (weekday
  and/or part of day), contact_channel, risk_profile (low/medium/high), else
  ``preference:<head noun>`` (preferences only); facts: marital_status, risk_profile,
  email_address, phone_number, residence, employer, occupation; relationships:
  ``relationship:<role>`` for one-person roles (wife, accountant…) when a name is given.
  ``negated`` marks a negative stance (don't want, hate, can't, decided not to) and keeps the
  attribute, so "I want crypto" and "I don't want crypto" share ``preference:crypto``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import islice

from memories.services import extraction_patterns as cues
from memories.services.extraction_patterns import words_of
from memories.services.normalise import (
    WEEKDAYS,
    detect_language,
    match_form,
    resolve_time,
    split_sentences,
    spot_entities,
    words,
)
from memories.services.text import clean, content_hash

ASSISTANT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})
CLIENT_SPEAKERS = frozenset({"", "user", "client", "customer"})
MAX_SENTENCE = 600
MAX_JOINTS = 12  # clause joints tried per sentence: bounds the cost of run-on lists
OPERATIONAL_TTL = timedelta(hours=24)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Candidate:
    content: str  # one atomic statement, in the utterance's language, cleaned
    kind: str  # a memories.models.Kind value
    category: str  # a memories.models.Category value, or ""
    confidence: float
    importance: float
    expires_at: datetime | None
    language: str  # "en" | "it" | "es"
    attribute: str = ""  # stable subject-attribute key for contradiction detection
    value: str = ""  # folded, canonical value of that attribute
    negated: bool = False
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Match:
    rule: cues.Rule | None  # None for procedures and fallbacks
    category: str  # a rule category, or procedural / event / request
    obj: str  # folded object phrase
    negated: bool = False
    role: str = ""


# --- Canonical values -----------------------------------------------------------------------
_Table = tuple[tuple[re.Pattern[str], str], ...]


def _table(pairs: dict[str, str]) -> _Table:
    return tuple((re.compile(rf"\b(?:{regex})\b"), value) for regex, value in pairs.items())


_FREQUENCIES = _table(cues.FREQUENCIES)
_DAYPARTS = _table(cues.DAYPARTS)
_CHANNELS = _table(cues.CHANNELS)
_RISK = _table(cues.RISK_LEVELS)
_MARITAL = _table(cues.MARITAL_STATUSES)
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")s?\b")
_HEADS = {word: head for head, group in cues.HEAD_NOUNS.items() for word in words_of(group)}
_FILLERS = words_of(cues.FILLERS)
_BREAKS = words_of(cues.PHRASE_BREAKS)
_EN_CLAUSE = words_of("i you we he she they it is are was were do does don't can't won't")
_STOPWORDS = _FILLERS | words_of(cues.STOPWORDS)
_NOT_NAMES = words_of(cues.NOT_NAMES)
_REACTIONS = {
    f"preference:{noun}"
    for noun in words_of("idea ideas suggestion proposal one idee suggerimento proposta sugerencia")
}
_KNOWN_ATTRIBUTES = words_of(
    "language report_frequency meeting_time contact_channel risk_profile marital_status "
    "email_address phone_number residence employer occupation"
)


def _first(table: _Table, text: str) -> str:
    """The value whose pattern occurs first in ``text``: the earliest mention wins."""
    hits = [(m.start(), value) for pattern, value in table if (m := pattern.search(text))]
    return min(hits)[1] if hits else ""


def _service_attribute(folded: str) -> tuple[str, str]:
    """How, when and in which language to serve the client."""
    if language := cues.LANGUAGE.search(folded):
        return "language", cues.LANGUAGE_CODES[language.group(1)[:4]]
    if cues.REPORTS.search(folded) and (frequency := _first(_FREQUENCIES, folded)):
        return "report_frequency", frequency
    weekday = _WEEKDAY.search(folded)
    day = _WEEKDAY_NAMES[WEEKDAYS[weekday.group(1)]] if weekday else ""
    if when := " ".join(part for part in (day, _first(_DAYPARTS, folded)) if part):
        return "meeting_time", when
    if channel := _first(_CHANNELS, folded):
        return "contact_channel", channel
    return "", ""


def _risk(folded: str) -> str:
    level = _first(_RISK, folded)
    if level and (cues.RISK_CONTEXT.search(folded) or cues.RISK_ONLY.search(folded)):
        return level
    return ""


def _names(original: str) -> list[str]:
    """Runs of capitalised words, without possessives, titles and conjunctions."""
    runs: list[str] = []
    current: list[str] = []
    for token in re.findall(r"[^\W\d_][\w'\u2019-]*|\S", original):
        if token[:1].isupper() and match_form(token) not in _NOT_NAMES:
            current.append(token)
        elif current:
            runs.append(" ".join(current))
            current = []
    return [*runs, " ".join(current)] if current else runs


def _breaks(token: str, language: str) -> bool:
    """Where a noun phrase ends: a preposition or conjunction; in English also a pronoun,
    an auxiliary or an adverb ("my accountant completely")."""
    if language == "en" and (token in _EN_CLAUSE or (token.endswith("ly") and len(token) > 4)):
        return True
    return token in _BREAKS


_ELISION = re.compile(r"^(?:l|un|dell|all|nell|dall|sull|d)'")


def _phrase(obj: str, language: str, verb_first: bool) -> tuple[str, str]:
    """(value, head) of an object: 'any index funds in…' → ('index funds', 'funds')."""
    first_clause = re.split(r"[,;:.!?()]", obj)[0]
    tokens = [_ELISION.sub("", token) for token in words(first_clause)]  # l'oro → oro
    infinitive, n = re.compile(cues.INFINITIVE[language]), len(tokens)

    def skip(j: int, vocabulary: frozenset[str] = _FILLERS) -> int:
        while j < n and tokens[j] in vocabulary:
            j += 1
        return j

    verb_first = verb_first or tokens[:1] == ["to"]
    i = skip(0)
    gerund = language == "en" and i < n and tokens[i].endswith("ing") and len(tokens[i]) > 4
    if i < n and (verb_first or gerund or infinitive.fullmatch(tokens[i])):
        verb, i = i, skip(i + 1)  # "to *sell* the house", "invertir en…": the noun follows
        if i < n and language == "en" and tokens[i].endswith("ed"):
            i = skip(i + 1)  # "to be contacted by…"
        i = verb if i >= n else i
    i = skip(i, _BREAKS)
    chunk: list[str] = []
    while i < n and len(chunk) < 4 and not (chunk and _breaks(tokens[i], language)):
        chunk.append(tokens[i])
        i += 1
    if not chunk:
        return "", ""
    head = chunk[-1] if language == "en" else chunk[0]  # English nouns end the phrase
    return " ".join(chunk), _HEADS.get(head, head)


def _fact_attribute(match: _Match, folded: str, original: str, language: str) -> tuple[str, str]:
    if status := _first(_MARITAL, folded):
        return "marital_status", status
    for entity in spot_entities(original):
        if entity["type"] == "email":
            return "email_address", entity["text"].casefold()
        if entity["type"] == "phone":
            return "phone_number", re.sub(r"[^\d+]", "", entity["text"])
    hint = match.rule.hint if match.rule else ""
    if hint in ("residence", "employer"):
        names = [name for name in _names(original) if match_form(name) in match.obj]
        value = match_form(names[0]) if names else _phrase(match.obj, language, False)[0]
        return (hint, value) if value else ("", "")
    if hint == "occupation" and (value := _phrase(match.obj, language, False)[0]):
        return hint, value
    return "", ""


def _person_attribute(match: _Match, original: str, language: str) -> tuple[str, str]:
    """A statement about one of the client's people, named. A fact about that person is
    keyed by their name ("my fiancé Marcus works at Airbus" → ``employer:marcus``), so that
    a later one about the same person supersedes it; otherwise, for roles one person holds,
    who the person is to the client (``relationship:husband`` = marcus)."""
    names = _names(original)
    if not names:
        return "", ""
    name = match_form(names[0])
    said = match.obj.replace(name, " ", 1)  # what the statement says of them
    fact = _classify(said, language)
    if fact and fact.rule and fact.rule.hint in ("residence", "employer", "occupation"):
        attribute, value = _fact_attribute(fact, said, original, language)
        return (f"{attribute}:{name}", value) if attribute else ("", "")
    if role := cues.ONE_PERSON_ROLES.get(match.role):
        return f"relationship:{role}", name
    return "", ""


def _attribute(match: _Match, folded: str, original: str, language: str) -> tuple[str, str]:
    category = match.category
    if category in ("preference", "decision") and (found := _service_attribute(folded))[0]:
        return found
    if category in ("preference", "decision", "fact") and (level := _risk(folded)):
        return "risk_profile", level
    if category == "fact":
        return _fact_attribute(match, folded, original, language)
    if category == "relationship":
        return _person_attribute(match, original, language)
    if category == "preference":
        value, head = _phrase(match.obj, language, bool(match.rule and match.rule.verb_first))
        if head:
            return f"preference:{head}", value
    return "", ""


# --- Classification -------------------------------------------------------------------------
def _classify(folded: str, language: str) -> _Match | None:
    """The first cue that matches, in the utterance's language first, then in the others."""
    for lang in (language, *(other for other in cues.RULES if other != language)):
        if any(pattern.search(folded) for pattern in cues.PROCEDURES[lang]):
            return _Match(None, "procedural", folded)
        for rule in cues.RULES[lang]:
            found = rule.pattern.search(folded)
            if not found:
                continue
            groups = found.groupdict()
            obj = groups["obj"] if groups.get("obj") is not None else folded[found.end() :]
            if rule.object_before:
                obj = folded[: found.start()].strip() or obj
            obj = obj.strip()
            lead = next((w for w in words(obj) if w not in _FILLERS), "")
            if rule.not_request and lead in cues.REQUEST_VERBS:
                return _Match(rule, "request", obj)  # asks for something, tells nothing
            if rule.noun_object and (not lead or re.fullmatch(cues.INFINITIVE[lang], lead)):
                continue
            if rule.needs_object and not lead:
                continue
            negated = rule.negated or (
                rule.category in ("decision", "goal", "preference")
                and bool(cues.NEGATION_START.match(obj))  # "decided not to", "di non vendere"
            )
            return _Match(rule, rule.category, obj, negated, groups.get("role") or "")
    return None


def _strip(text: str) -> str:
    """The clause without greetings and fillers before it, nor separators after it."""
    stripped = cues.DISCOURSE.sub("", text.strip()) or text
    return stripped.strip().rstrip(",;:\u2014\u2013- ").strip()


def _is_statement(text: str, language: str) -> bool:
    match = _classify(match_form(_strip(text)), language)
    return match is not None and match.category != "request"


def _clauses(sentence: str, language: str) -> list[tuple[str, bool]]:
    """(clause, lifted out of a question) pairs of one sentence."""
    if "?" in sentence or "¿" in sentence:
        parts = re.split(r"[,;:]|¿", sentence)[:-1]
        return [
            (part, True)
            for part in parts
            if part.strip() and "?" not in part and not cues.QUESTION_START.match(match_form(part))
        ]
    folded = match_form(sentence)
    if any(p.search(folded) for patterns in cues.PROCEDURES.values() for p in patterns):
        return [(sentence, False)]  # "first…, then…" is one procedure
    for joint in islice(cues.CONJUNCTION.finditer(sentence), MAX_JOINTS):
        left, right = sentence[: joint.start()], sentence[joint.end() :]
        if _is_statement(left, language) and _is_statement(right, language):
            return [(left, False), *_clauses(right, language)]
    return [(sentence, False)]


def _substantive(folded: str) -> bool:
    """At least two content words: 'Tomorrow works' or 'Thanks so much' say nothing."""
    return sum(1 for w in words(folded) if w not in _STOPWORDS and len(w) > 1) >= 2


# --- Extraction -----------------------------------------------------------------------------
def extract(
    text: str,
    *,
    speaker: str = "user",
    source: str = "chat",
    observed_at: datetime,
    include_assistant: bool = False,
) -> list[Candidate]:
    """Atomic memory candidates in sentence order; see the module docstring for the rules."""
    who = clean(speaker).casefold()
    if who in ASSISTANT_SPEAKERS and not include_assistant:
        return []
    text = clean(_SURROGATE.sub("\ufffd", text))  # lone surrogates cannot be stored as UTF-8
    if not text:
        return []
    language = detect_language(text)
    candidates: list[Candidate] = []
    seen: set[str] = set()
    for sentence in split_sentences(text):
        if len(sentence) > MAX_SENTENCE:
            continue
        for clause, from_question in _clauses(sentence, language):
            candidate = _candidate(_strip(clause), language, who, source, observed_at)
            if candidate and (key := content_hash(candidate.content)) not in seen:
                seen.add(key)
                if from_question:
                    candidate = replace(
                        candidate,
                        confidence=round(candidate.confidence - 0.05, 2),
                        tags=(*candidate.tags, "question"),
                    )
                candidates.append(candidate)
    return candidates


def _candidate(
    content: str, language: str, who: str, source: str, observed_at: datetime
) -> Candidate | None:
    folded = match_form(content)
    if not re.search(r"\w", folded) or cues.SMALL_TALK.search(folded):
        return None
    time = resolve_time(folded, observed_at)
    match = _classify(folded, language)
    reported = bool(match and match.rule and match.rule.third_person)
    if (reported and who in CLIENT_SPEAKERS) or (match and match.category == "request"):
        return None  # the client speaking of someone else, or asking for something
    operational = source in ("tool", "observation")
    if match is None or operational:
        if not _substantive(folded):
            return None
        if operational:
            later = time.target is not None and time.target > observed_at.date()
            match = _Match(None, "event" if later else "fact", folded)
        elif time.until or time.past:
            match = _Match(None, "event", folded)
        elif source == "decision":
            match = _Match(None, "decision", folded)
        else:
            return None
    if match.rule and match.rule.hint in ("residence", "employer") and time.until:
        match = replace(match, category="event")  # "we move to Lugano next month": not yet true
    category = match.category
    kind = {"procedural": "procedural", "decision": "decision", "event": "episodic"}.get(
        category, "semantic"
    )
    kind = "operational" if operational else "decision" if source == "decision" else kind
    attribute, value = _attribute(match, folded, content, language)
    if category == "preference" and (not attribute or attribute in _REACTIONS):
        return None  # "I love it!", "Mi piace!", "I like that idea": reactions, not preferences

    expires_at = None
    if operational:
        expires_at = max(observed_at + OPERATIONAL_TTL, time.until or observed_at)
    elif kind != "decision" and category in ("goal", "constraint", "event"):
        expires_at = time.until

    hedged = bool(cues.HEDGES.search(folded))
    assistant = who in ASSISTANT_SPEAKERS
    entities = sorted({entity["type"] for entity in spot_entities(content)})
    flags = (("hedged", hedged), ("reported", reported), ("assistant", assistant))
    if category in ("procedural", "decision") or (kind == "decision" and category == "event"):
        category_value = ""  # the kind says it all
    else:
        category_value = category
    return Candidate(
        content=content,
        kind=kind,
        category=category_value,
        confidence=_confidence(kind, category, reported, hedged=hedged, assistant=assistant),
        importance=_importance(kind, category, attribute, amount="amount" in entities),
        expires_at=expires_at,
        language=language,
        attribute=attribute,
        value=value,
        negated=match.negated,
        tags=(*entities, *(flag for flag, on in flags if on)),
    )


def _confidence(
    kind: str, category: str, reported: bool, *, hedged: bool, assistant: bool
) -> float:
    if kind == "operational":
        value = 0.8
    elif category in ("fact", "decision", "constraint", "relationship") or kind == "decision":
        value = 0.9
    else:
        value = 0.8 if category == "event" else 0.85
    if reported:
        value = 0.75
    if assistant:
        value = min(value, 0.7)
    return 0.55 if hedged else value


_IMPORTANCE = {
    "decision": 0.8,
    "constraint": 0.8,
    "relationship": 0.7,
    "goal": 0.7,
    "procedural": 0.7,
    "fact": 0.6,
    "event": 0.5,
    "preference": 0.4,
}


def _importance(kind: str, category: str, attribute: str, *, amount: bool) -> float:
    known = attribute in _KNOWN_ATTRIBUTES
    if kind in ("operational", "decision"):
        value = 0.3 if kind == "operational" else _IMPORTANCE["decision"]
    elif category == "preference":
        value = 0.6 if known else _IMPORTANCE["preference"]
    else:
        value = _IMPORTANCE.get(category, 0.5) + (0.1 if known else 0.0)
    return round(min(1.0, value + (0.1 if amount else 0.0)), 2)
