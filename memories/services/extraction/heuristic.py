"""Zero-cost heuristic extraction of atomic memories from one event (English, Italian, Spanish).

No model, no network: sentences and clauses, the cue tables of ``patterns`` and
the days of ``time_expressions``. It favours precision: a sentence that matches no cue
yields nothing, so greetings, thanks, requests and questions fall away by construction.

Rules
- Speakers: an assistant speaker (``ASSISTANT_SPEAKERS``, any case) yields nothing unless
  ``include_assistant``, whatever the source. Any other speaker is extracted, but third-person
  cues ("she prefers", "il cliente preferisce") count only when the speaker is not the client
  ("user", "client", "customer"): from the client, "she" is somebody else.
- Sentences split on . ! ? … ; and line breaks, not after abbreviations, initials or inside
  decimals; clauses split on commas, colons and and/but/so/e/ma/y/pero… only when both sides
  match a cue on their own or name a plan's day (``joints``). A question yields nothing but
  the non-final, non-interrogative clauses before it ("I moved to Zurich last month, can you
  update my address?"), and itself when it states a preference ("how can I use my preference
  for digital tools…?"). A run-on of over 600 characters is skipped. A fenced listing
  (```…```, to the end of the event when left open: code, configuration or data pasted in)
  is kept in the episode as said and yields no typed memory: a comment or string in it is
  not the speaker's preference or fact.
- Precedence: procedure, own decision, relationship (a clause opening "my wife…", "mi
  hijo…"), reported decision, constraint, goal, preference, fact. No cue but a future day: an
  episodic event; no cue but a past reference: a past episodic event. A request ("I'd like to
  know…", "vorrei fissare…") yields nothing.
- Kinds: procedure → procedural; decision → decision (category ""); event → episodic/event;
  the rest semantic/<category>. A move or new job with a future day ("we move to Lugano next
  month") is an event, not yet a fact. ``source="decision"``: every statement is kind
  decision and keeps its preference/fact/goal/constraint category. ``source="tool"`` or
  ``"observation"``: every statement is kind operational, category "event" when it names a
  day after today, else "fact". (An advisor's note about the client is what a person says:
  ``source="chat"`` with the advisor as speaker.)
- When (``time_expressions`` resolves the days): the day the statement says it happens or
  happened (``occurred``): a date that names its year means that year; goals, constraints
  and statements that look ahead take the next such day, the rest the latest that has been.
- Expiry: operational memories last until the end of the furthest day they name and never
  less than 24 hours, then leave the live set. A goal, constraint or event whose day is
  ahead is *past* from the end of the furthest day it names (``expires_at``): still
  searched, ranked a little lower, shown as past. Preferences, facts, relationships,
  procedures, decisions and what has already happened never expire.
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
  email_address, phone_number, residence, employer, occupation; relationships naming a
  person: that person's residence, employer or occupation keyed by name
  (``employer:marcus``) when the statement gives one, else ``relationship:<role>`` for
  one-person roles (wife, accountant…). Clauses are read in ``clauses``.
  ``negated`` marks a negative stance (don't want, hate, can't, decided not to) and keeps the
  attribute, so "I want crypto" and "I don't want crypto" share ``preference:crypto``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memories.services.extraction import patterns as cues
from memories.services.extraction import vocabulary, weights
from memories.services.extraction.clauses import (
    CONTACT,
    REACTIONS,
    Match,
    attribute_of,
    children_count,
    classify,
    service_attribute,
    strip_clause,
)
from memories.services.extraction.joints import clauses_of, substantive
from memories.services.extraction.normalise import (
    detect_language,
    match_form,
    split_listings,
    split_sentences,
    spot_entities,
)
from memories.services.extraction.time_expressions import (
    Happened,
    looks_ahead,
    looks_back,
    resolve_time,
    resolve_when,
    still_ahead,
)
from memories.text import clean, content_hash

ASSISTANT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})
CLIENT_SPEAKERS = frozenset({"", "user", "client", "customer"})
# People who speak about the client rather than as the client: their notes are about the
# client ("Prefers calls after 6pm", "Giulia keeps her savings at…").
STAFF_SPEAKERS = frozenset(
    {
        "advisor", "adviser", "advisor note", "note", "notes", "staff", "rm", "banker",
        "relationship manager", "planner", "consultant", "supervisor", "consulente",
        "gestore", "promotore", "asesor", "asesora", "gestor", "gestora", "consultor",
    }
)  # fmt: skip


def speaker_role(speaker: str) -> str:
    """``client``, ``assistant``, ``staff`` or, for anyone else (a name), ``person``."""
    who = clean(speaker).casefold()
    if who in CLIENT_SPEAKERS:
        return "client"
    if who in ASSISTANT_SPEAKERS:
        return "assistant"
    return "staff" if who in STAFF_SPEAKERS else "person"


MAX_SENTENCE = 600
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
    # When what it tells of happens or happened (a plan's day may be ahead), if it says.
    occurred: Happened | None = None
    # What it is about and how sure the reading is (memories.services.topics), and whom
    # ("" the client, else a role or a name): read once its vector is known.
    topic: str = ""
    topic_probability: float = 0.0
    topics: tuple[tuple[str, float], ...] = ()  # every topic it may be about, most likely first
    about: str = ""


# --- Extraction -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Sentence:
    """One sentence of an event and the typed candidates read from it (often none)."""

    text: str
    candidates: tuple[Candidate, ...]
    listing: bool = False  # a line of a fenced listing: read as pasted, never as prose


def read(
    text: str,
    *,
    speaker: str = "user",
    source: str = "chat",
    observed_at: datetime,
    include_assistant: bool = False,
) -> tuple[str, list[Sentence]]:
    """The event's language and its sentences, each with the candidates it yields (the
    episodic layer keeps the informative sentences that yield none). An assistant's words
    yield no sentence unless ``include_assistant``."""
    who = clean(speaker).casefold()
    text = clean(_SURROGATE.sub("\ufffd", text))  # lone surrogates cannot be stored as UTF-8
    if (who in ASSISTANT_SPEAKERS and not include_assistant) or not text:
        return "en", []
    language = detect_language(text)
    seen: set[str] = set()
    # An advisor's question asks the client: what it asks is not said.
    own = speaker_role(who) != "staff"
    sentences = [
        Sentence(
            s, () if listing else _read(s, language, who, source, observed_at, seen, own), listing
        )
        for part, listing in split_listings(text)
        for s in split_sentences(part)
    ]
    return language, sentences


def _read(
    sentence: str,
    language: str,
    who: str,
    source: str,
    observed_at: datetime,
    seen: set[str],
    own: bool = True,
) -> tuple[Candidate, ...]:
    """The candidates of one sentence, but those an earlier sentence of the event gave
    (``seen`` holds their content hashes)."""
    if len(sentence) > MAX_SENTENCE:
        return ()
    found: list[Candidate] = []
    for clause, from_question in clauses_of(sentence, language, own):
        candidate = _candidate(strip_clause(clause), language, who, source, observed_at)
        if candidate and (key := content_hash(candidate.content)) not in seen:
            seen.add(key)
            if from_question:
                candidate = replace(
                    candidate,
                    confidence=round(candidate.confidence - 0.05, 2),
                    tags=(*candidate.tags, "question"),
                )
            found.append(candidate)
    return tuple(found)


def extract(
    text: str,
    *,
    speaker: str = "user",
    source: str = "chat",
    observed_at: datetime,
    include_assistant: bool = False,
) -> list[Candidate]:
    """Atomic memory candidates in sentence order; see the module docstring for the rules."""
    _, sentences = read(
        text,
        speaker=speaker,
        source=source,
        observed_at=observed_at,
        include_assistant=include_assistant,
    )
    return [candidate for sentence in sentences for candidate in sentence.candidates]


def _candidate(
    content: str, language: str, who: str, source: str, observed_at: datetime
) -> Candidate | None:
    folded = match_form(content)
    if not re.search(r"\w", folded) or cues.SMALL_TALK.search(folded):
        return None
    time = resolve_time(folded, observed_at)
    match = classify(folded, language)
    reported = bool(match and match.rule and match.rule.third_person)
    if match and match.category == "request" and service_attribute(folded)[0] in _STANDING:
        # "Please write to me in English", "I'd like monthly reports": asked, and how the
        # client wants to be served from now on.
        match = Match(match.rule, "preference", match.obj, match.negated)
    if (reported and who in CLIENT_SPEAKERS) or (match and match.category == "request"):
        return None  # the client speaking of someone else, or asking for something
    if match is None and source not in ("tool", "observation"):
        if _standing(folded):
            match = Match(None, "preference", folded)  # "Please write to me in English."
        elif children_count(folded):
            match = Match(None, "fact", folded)  # "No tengo hijos."
    operational = source in ("tool", "observation")
    if match is None or operational:
        if not substantive(folded):
            return None
        if operational:
            later = time.target is not None and time.target > observed_at.date()
            match = Match(None, "event" if later else "fact", folded)
        elif time.until or time.past:
            match = Match(None, "event", folded)
        elif source == "decision":
            match = Match(None, "decision", folded)
        else:
            return None
    if (
        match.rule
        and match.rule.hint in ("residence", "employer")
        and time.until
        and not looks_back(folded)
    ):
        # "we move to Lugano next month": not yet true ("we moved to Turin in May" is)
        match = replace(match, category="event")
    category = match.category
    kind = {"procedural": "procedural", "decision": "decision", "event": "episodic"}.get(
        category, "semantic"
    )
    kind = "operational" if operational else "decision" if source == "decision" else kind
    attribute, value = attribute_of(match, folded, content, language)
    unkeyed = bool(match.rule and match.rule.unkeyed)
    if category == "preference" and not unkeyed and (not attribute or attribute in REACTIONS):
        return None  # "I love it!", "Mi piace!", "I like that idea": reactions, not preferences
    # "I'm not married", "non sono sposato", "ya no vivo en Sevilla": the fact, denied.
    negated = match.negated or (
        category == "fact" and attribute in _DENIABLE and bool(_DENIED.search(folded))
    )
    spouse = category == "relationship" and (
        vocabulary.ONE_PERSON_ROLES.get(match.role) in vocabulary.SPOUSE_ROLES
    )

    ahead = category in _AHEAD or looks_ahead(folded, time)
    occurred = resolve_when(folded, observed_at, ahead=ahead)
    expires_at = None
    if operational:
        expires_at = max(observed_at + OPERATIONAL_TTL, time.until or observed_at)
    elif (
        kind != "decision"
        and (category in _DATED or (category not in _UNDATED and ahead))
        and still_ahead(occurred, observed_at)
    ):
        expires_at = time.until  # past from the end of the furthest day it names

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
        confidence=weights.confidence(kind, category, reported, hedged=hedged, assistant=assistant),
        importance=weights.importance(kind, category, attribute, amount="amount" in entities),
        expires_at=expires_at,
        language=language,
        attribute=attribute,
        value=value,
        negated=negated,
        tags=(*entities, *(flag for flag, on in flags if on), *(["spouse"] if spouse else [])),
        occurred=occurred,
    )


# Said of what is still to come, whatever the tense: its day is the next one so named.
_AHEAD = frozenset({"goal", "constraint"})
# What becomes past once its day has gone by; and, of the rest, what never does however it
# is said: a fact or a relationship said of a day ahead ("my daughter's fees are due on 20
# December", "I retire in June") is a plan or a deadline, and goes by too.
_DATED = frozenset({"goal", "constraint", "event"})
_UNDATED = frozenset({"preference", "procedural"})

# How the client is served from now on, even when asked for ("write to me in English"); a
# time asked for is one appointment, not a standing preference.
_STANDING = frozenset({"language", "contact_channel", "report_frequency"})


def _standing(folded: str) -> bool:
    """Says how the client is to be served, without a cue: a language or a report frequency,
    or a channel with a verb of reaching them ("please write to me in English")."""
    attribute, _ = service_attribute(folded)
    return attribute in _STANDING and (
        attribute != "contact_channel" or bool(CONTACT.search(folded))
    )


_DENIABLE = frozenset({"marital_status", "residence", "employer", "occupation"})
_DENIED = re.compile(
    r"\b(?:not|never|no longer|n't|non|no|nunca|mai|ya no|non piu|nemmeno)\s"
    r"(?:\w+\s){0,2}(?:married|divorced|sposat\w*|casad\w*|divorziat\w*|divorciad\w*|live|"
    r"living|work|working|vivo|abito|lavoro|trabajo|vive|lavora|trabaja|am|sono|estoy|soy)\b"
    r"|\b(?:i'm|i am|im)\snot\b"
)
