"""The heuristic extractor against its fixture (the contract), plus language, entities, time
and robustness. Pure Python: no database."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memories.models import Category, Kind
from memories.services.extraction.heuristic import ASSISTANT_SPEAKERS, Candidate, extract
from memories.services.extraction.normalise import (
    detect_language,
    match_form,
    split_sentences,
    spot_entities,
    stated_quantities,
)
from memories.services.extraction.time_expressions import resolve_time

FIXTURE = json.loads(
    (Path(__file__).parent / "data" / "extraction_cases.json").read_text(encoding="utf-8")
)
OBSERVED_AT = datetime.fromisoformat(FIXTURE["observed_at"])
CASES = FIXTURE["cases"]


def _run(case: dict) -> list[Candidate]:
    return extract(
        case["text"],
        speaker=case.get("speaker", "user"),
        source=case.get("source", "chat"),
        observed_at=OBSERVED_AT,
        include_assistant=case.get("include_assistant", False),
    )


def _days(candidate: Candidate) -> float | None:
    if candidate.expires_at is None:
        return None
    return (candidate.expires_at - OBSERVED_AT) / timedelta(days=1)


def _mismatches(candidate: Candidate, expected: dict, language: str) -> list[str]:
    """Every field the candidate gets wrong, empty when it meets the expectation."""
    wanted = {
        "kind": expected["kind"],
        "category": expected["category"],
        "attribute": expected.get("attribute", ""),
        "value": expected.get("value", ""),
        "negated": expected.get("negated", False),
        "language": language,
    }
    if "content" in expected:
        wanted["content"] = expected["content"]
    errors = [
        f"{field}={getattr(candidate, field)!r}, expected {value!r}"
        for field, value in wanted.items()
        if getattr(candidate, field) != value
    ]
    days, expected_days = _days(candidate), expected["expires_in_days"]
    if expected_days is None:
        if days is not None:
            errors.append(f"expires in {days:.2f} days, expected never")
    elif days is None or abs(days - expected_days) > max(1.0, 0.05 * expected_days):
        errors.append(f"expires in {days} days, expected {expected_days}")
    if expected.get("hedged"):
        if not 0.5 <= candidate.confidence <= 0.6:
            errors.append(f"hedged confidence {candidate.confidence}")
    elif candidate.confidence < 0.7:
        errors.append(f"confidence {candidate.confidence} too low")
    if expected.get("reported") and "reported" not in candidate.tags:
        errors.append("not tagged as reported")
    return errors


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_fixture_case(case):
    candidates = _run(case)
    assert len(candidates) == len(case["expected"]), [c.content for c in candidates]
    for candidate, expected in zip(candidates, case["expected"], strict=True):
        errors = _mismatches(candidate, expected, case["language"])
        assert not errors, (candidate.content, errors)


def test_fixture_covers_each_language():
    per_language = Counter(case["language"] for case in CASES)
    assert len(CASES) >= 60
    assert all(per_language[lang] >= 20 for lang in ("en", "it", "es")), per_language
    assert {c["kind"] for case in CASES for c in case["expected"]} >= {
        "semantic",
        "decision",
        "procedural",
        "operational",
        "episodic",
    }


def test_precision_and_recall_over_the_whole_fixture():
    """Greedy in-order matching: a candidate is a true positive when it meets the next
    unmatched expectation of its case. Both rates must be 100%."""
    true_positives = predicted = relevant = 0
    failures = []
    for case in CASES:
        candidates, expected = _run(case), case["expected"]
        predicted += len(candidates)
        relevant += len(expected)
        remaining = list(expected)
        for candidate in candidates:
            hit = next(
                (e for e in remaining if not _mismatches(candidate, e, case["language"])), None
            )
            if hit is None:
                failures.append((case["id"], candidate.content))
            else:
                remaining.remove(hit)
                true_positives += 1
        failures += [(case["id"], f"missed {e['kind']}/{e['category']}") for e in remaining]
    precision = true_positives / predicted if predicted else 1.0
    recall = true_positives / relevant if relevant else 1.0
    assert (precision, recall) == (1.0, 1.0), failures


def test_kinds_and_categories_are_model_choices():
    kinds, categories = set(Kind.values), set(Category.values)
    for case in CASES:
        for candidate in _run(case):
            assert candidate.kind in kinds
            assert candidate.category in categories
            assert 0 <= candidate.confidence <= 1 and 0 <= candidate.importance <= 1
            assert candidate.expires_at is None or candidate.expires_at > OBSERVED_AT


@pytest.mark.parametrize(
    ("text", "speaker", "low", "high"),
    [
        ("I live in Milan.", "user", 0.85, 0.9),
        ("Preferisco essere contattato via email.", "user", 0.85, 0.9),
        ("He decidido cancelar el seguro de vida.", "client", 0.85, 0.9),
        ("Maybe we'll go with the balanced portfolio.", "user", 0.5, 0.6),
        ("Forse preferisco le obbligazioni.", "user", 0.5, 0.6),
        ("Quizás prefiero los bonos.", "user", 0.5, 0.6),
        ("I think I'd prefer phone calls.", "user", 0.5, 0.6),
        ("She lives in Rome.", "advisor", 0.7, 0.8),
    ],
)
def test_confidence_is_lower_when_hedged_or_reported(text, speaker, low, high):
    (candidate,) = extract(text, speaker=speaker, observed_at=OBSERVED_AT)
    assert low <= candidate.confidence <= high


def test_importance_ranks_decisions_above_passing_preferences():
    decision = extract("We've decided to sell the apartment.", observed_at=OBSERVED_AT)[0]
    constraint = extract("I can't hold more than 10% in one stock.", observed_at=OBSERVED_AT)[0]
    passing = extract("I like sustainable funds.", observed_at=OBSERVED_AT)[0]
    assert decision.importance > passing.importance
    assert constraint.importance > passing.importance


def test_contradicting_statements_share_the_attribute():
    first = extract("I prefer to be contacted by email.", observed_at=OBSERVED_AT)[0]
    later = extract("Preferisco essere chiamato al telefono.", observed_at=OBSERVED_AT)[0]
    assert (first.attribute, first.value) == ("contact_channel", "email")
    assert (later.attribute, later.value) == ("contact_channel", "phone")
    liked = extract("Me gustan las criptomonedas.", observed_at=OBSERVED_AT)[0]
    refused = extract("I don't want crypto.", observed_at=OBSERVED_AT)[0]
    assert liked.attribute == refused.attribute == "preference:crypto"
    assert (liked.negated, refused.negated) == (False, True)


@pytest.mark.parametrize(
    "text",
    [
        "I prefer it due to its flexibility and industry adoption.",
        "I like it a lot.",
        "I prefer this over the old one.",
        "Preferisco questo perché costa meno.",
        "Prefiero esto porque es más barato.",
    ],
)
def test_a_preference_for_what_a_pronoun_stands_for_has_no_attribute(text):
    """The thing is named in an earlier sentence: keyed by the word after the pronoun
    ("due", "lot"), a later "I prefer it for…" about anything else would supersede it."""
    assert [c.attribute for c in extract(text, observed_at=OBSERVED_AT)] == []


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("I have a strong preference for index funds.", "preference:funds"),
        (
            "I've set a preference for CPU-only deployment due to hardware limits.",
            "preference:deployment",
        ),
        ("My preference is for email.", "contact_channel"),
        ("I prefer tea rather than coffee.", "preference:tea"),
        ("Ho una preferenza per i fondi indicizzati.", "preference:funds"),
        ("La mia preferenza va ai fondi etici, nonostante i costi.", "preference:funds"),
        ("Tengo preferencia por los fondos indexados.", "preference:funds"),
    ],
)
def test_a_preference_said_as_a_noun_is_a_preference(text, attribute):
    """Keyed by the thing preferred, not by the word after it ("due", "rather")."""
    assert [(c.category, c.attribute) for c in extract(text, observed_at=OBSERVED_AT)] == [
        ("preference", attribute)
    ]


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Always provide a code example when I ask about async error handling.", False),
        ("Always make sure to include the endpoint path when I ask about the API.", False),
        ("When I ask about deployment, always include the exact version numbers.", False),
        ("From now on, use metric units when you talk about my runs.", False),
        ("Never round the figures when I ask about my pension.", True),
        ("Includi sempre un esempio di codice quando chiedo di async.", False),
        ("D'ora in poi rispondi in modo breve.", False),
        ("Dammi sempre le cifre esatte.", False),
        ("Non usare mai il gergo tecnico.", True),
        ("Quando ti chiedo dei fondi, indica sempre le commissioni.", False),
        ("Ogni volta che parliamo di tasse, non usare mai il gergo.", True),
        ("Siempre incluye un ejemplo de código cuando pregunto sobre async.", False),
        ("De ahora en adelante, responde con ejemplos.", False),
        ("Nunca uses jerga técnica.", True),
        ("Cuando te pregunte por impuestos, dame siempre la fecha límite.", False),
        ("Cada vez que hablemos de la hipoteca, nunca uses jerga.", True),
    ],
)
def test_a_standing_instruction_is_a_preference_keyed_by_nothing(text, negated):
    """How the client wants to be answered from now on: a preference. Its scope ("when I
    ask about async") is in its words, so no attribute keys it: two instructions of one
    head noun ("include the endpoint path…", "include the summary…") are two memories,
    not one superseding the other."""
    assert [
        (c.kind, c.category, c.attribute, c.negated) for c in extract(text, observed_at=OBSERVED_AT)
    ] == [("semantic", "preference", "", negated)]


@pytest.mark.parametrize(
    "text",
    [
        "Always been a fan of jazz.",
        "Always the same problem with this laptop.",
        "Never mind, that's fine.",
        "Ho sempre amato il jazz.",
        "Da sempre lavoro in banca.",
        "Siempre he querido viajar a Japón.",
        "Quando parliamo di tasse, sono sempre nervoso.",
        "Cuando hablo con mi hermano, siempre discutimos.",
    ],
)
def test_always_and_never_in_a_report_are_no_instruction(text):
    assert [c.category for c in extract(text, observed_at=OBSERVED_AT)] != ["preference"]


@pytest.mark.parametrize(
    "text",
    [
        "I prioritize battery life and portability over the best graphics card.",
        "I've prioritized battery life and camera quality over brand prestige.",
        "I'm prioritizing quiet surroundings and natural light.",
        "I've been prioritizing team success over individual accolades.",
        "Do la priorità alla durata della batteria rispetto alla grafica.",
        "Priorizo la duración de la batería sobre la cámara.",
    ],
)
def test_a_priority_is_a_preference_keyed_by_nothing(text):
    """What comes first for the client; keyed by its head noun ("life" of "battery life"),
    a later priority of the same noun would supersede it."""
    assert [(c.category, c.attribute) for c in extract(text, observed_at=OBSERVED_AT)] == [
        ("preference", "")
    ]


def test_a_goal_and_a_preference_in_one_sentence_are_two_memories():
    text = "I'm trying to speed up my app, and I've set a preference for CPU-only deployment."
    assert [c.category for c in extract(text, observed_at=OBSERVED_AT)] == ["goal", "preference"]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            "How can I use my preference for digital tools to plan the December meeting?",
            "How can I use my preference for digital tools to plan the December meeting?",
        ),
        (
            "I'm curious, what do you think of my preference for supporting roles over leads?",
            "what do you think of my preference for supporting roles over leads?",
        ),
        (
            "Given my preference for index funds, how should I invest the bonus?",
            "Given my preference for index funds",
        ),
        (
            "¿Qué opinas de mi preferencia por los fondos indexados?",
            "¿Qué opinas de mi preferencia por los fondos indexados?",
        ),
        (
            "Come uso la mia preferenza per i fondi indicizzati?",
            "Come uso la mia preferenza per i fondi indicizzati?",
        ),
    ],
)
def test_a_preference_said_while_asking_is_a_preference(text, content):
    assert [(c.category, c.content) for c in extract(text, observed_at=OBSERVED_AT)] == [
        ("preference", content)
    ]


@pytest.mark.parametrize(
    "text", ["Do you prefer tea or coffee?", "Do you have a preference for tea or coffee?"]
)
def test_asking_the_listener_what_they_prefer_is_no_preference(text):
    assert extract(text, observed_at=OBSERVED_AT) == []


def test_a_relative_clause_before_a_question_stays_with_what_it_tells_of():
    text = (
        "I'm trying to cut my monthly spending on coffee beans, which has increased to $75, "
        "so can you suggest a cheaper roaster?"
    )
    assert [c.content for c in extract(text, observed_at=OBSERVED_AT)] == [
        "I'm trying to cut my monthly spending on coffee beans, which has increased to $75"
    ]


@pytest.mark.parametrize("text", ["I have no preference for either.", "Do you have a preference?"])
def test_no_preference_is_not_a_preference(text):
    assert extract(text, observed_at=OBSERVED_AT) == []


def test_a_preference_for_a_named_thing_keeps_its_attribute():
    found = extract("I prefer this bank over the others.", observed_at=OBSERVED_AT)
    assert [(c.attribute, c.value) for c in found] == [("preference:bank", "bank")]
    found = extract("I like it when you email me.", observed_at=OBSERVED_AT)
    assert [(c.attribute, c.value) for c in found] == [("contact_channel", "email")]


@pytest.mark.parametrize(
    "text",
    [
        "My config:\n```yaml\n# I prefer port 8080\nport: 8080\n```\nI live in Milan.",
        # Left open, the listing runs to the end of the event.
        "I live in Milan. Here it is:\n```\nname = 'I want to retire at 60'\nI prefer tabs",
        # On one line, as a message may arrive once its line breaks are folded.
        "```js // we decided to use moment ``` I live in Milan.",
    ],
)
def test_a_fenced_listing_yields_no_memory(text):
    found = extract(text, observed_at=OBSERVED_AT)
    assert [(c.category, c.content) for c in found] == [("fact", "I live in Milan.")]


@pytest.mark.parametrize("speaker", [*sorted(ASSISTANT_SPEAKERS), "Assistant", " BOT "])
def test_assistant_speech_is_ignored_by_default(speaker):
    text = "I prefer email and I live in Milan."
    assert extract(text, speaker=speaker, observed_at=OBSERVED_AT) == []
    assert extract(text, speaker=speaker, observed_at=OBSERVED_AT, include_assistant=True)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("I would like my reports in Italian, please.", "en"),
        ("ok", "en"),
        ("", "en"),
        ("Grazie mille", "it"),
        ("Buongiorno", "it"),
        ("Vivo a Torino da dieci anni.", "it"),
        ("Ho due figli e l'anno prossimo vorrei comprare casa.", "it"),
        ("Hola, ¿qué tal?", "es"),
        ("Tengo tres hijos.", "es"),
        ("Mi contador es Javier Ruiz.", "es"),
        ("Prefiero que me llamen por teléfono.", "es"),
    ],
)
def test_detect_language(text, language):
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We met John Smith at Banca Sella on 12 March and moved €250,000 and 10k to "
            "Credit Suisse AG. Call +39 02 1234 5678 or write to anna.rossi@example.com.",
            [
                ("person", "John Smith"),
                ("organisation", "Banca Sella"),
                ("date", "12 March"),
                ("amount", "€250,000"),
                ("amount", "10k"),
                ("organisation", "Credit Suisse AG"),
                ("phone", "+39 02 1234 5678"),
                ("email", "anna.rossi@example.com"),
            ],
        ),
        (
            "Mio figlio Luca lavora presso Generali SpA e ha messo da parte 2 milioni entro il "
            "15 marzo 2026.",
            [
                ("person", "Luca"),
                ("organisation", "Generali SpA"),
                ("amount", "2 milioni"),
                ("date", "15 marzo 2026"),
            ],
        ),
        (
            "Mi hija Lucía firmó con el Banco Santander el 3 de abril: 3 millones de euros, "
            "y el viernes 1.5 million más.",
            [
                ("person", "Lucía"),
                ("organisation", "Banco Santander"),
                ("date", "3 de abril"),
                ("amount", "3 millones de euros"),
                ("date", "viernes"),
                ("amount", "1.5 million"),
            ],
        ),
        (
            "The review is on 2026-04-15, a Wednesday.",
            [("date", "2026-04-15"), ("date", "Wednesday")],
        ),
        ("Milan is lovely. I live in Rome.", []),
    ],
)
def test_spot_entities(text, expected):
    assert [(e["type"], e["text"]) for e in spot_entities(text)] == expected


def test_split_sentences_respects_abbreviations_and_decimals():
    text = "I have 1.5 million, e.g. in bonds. Dr. Rossi agrees! Per es. no. ¿Vale? Sí."
    assert split_sentences(text) == [
        "I have 1.5 million, e.g. in bonds.",
        "Dr. Rossi agrees!",
        "Per es. no.",
        "¿Vale?",
        "Sí.",
    ]


@pytest.mark.parametrize(
    ("phrase", "days"),
    [
        ("today", 0),
        ("tonight", 0),
        ("tomorrow", 1),
        ("the day after tomorrow", 2),
        ("this week", 6),
        ("next week", 7),
        ("next month", 31),
        ("by Friday", 4),
        ("in 3 days", 3),
        ("within two years", 731),
        ("by 12 March", 10),
        ("oggi", 0),
        ("domani", 1),
        ("la prossima settimana", 7),
        ("entro venerdì", 4),
        ("il mese prossimo", 31),
        ("tra tre giorni", 3),
        ("entro il 15 marzo", 13),
        ("hoy", 0),
        ("mañana", 1),
        ("la próxima semana", 7),
        ("el mes que viene", 31),
        ("antes del viernes", 4),
        ("dentro de cinco años", 1826),
        ("antes del 3 de abril", 32),
        ("by the end of the year", 304),
        ("2026-04-15", 44),
    ],
)
def test_time_expressions_resolve_to_the_end_of_a_day(phrase, days):
    until = resolve_time(match_form(phrase), OBSERVED_AT).until
    assert until is not None
    assert (until - OBSERVED_AT) / timedelta(days=1) == pytest.approx(days + 14 / 24)


@pytest.mark.parametrize("phrase", ["yesterday", "la settimana scorsa", "hace dos años", "ieri"])
def test_past_expressions_bind_no_future_day(phrase):
    time = resolve_time(match_form(phrase), OBSERVED_AT)
    assert time.until is None and time.past


NASTY = [
    "",
    " ",
    "?!.,;:…¿¡",
    "." * 500,
    "a" * 10_000,
    "I prefer email. " * 700,
    "I prefer email and " * 600,
    "\x00\x01\x02 I prefer\x07 email\x1b[31m\x7f",
    "😀🙏🏽💶 I love ETFs 🚀🚀",
    "Я предпочитаю email. 我喜欢债券。 أنا أحب الذهب. Mi piace l'oro.",
    "\u200b\u200e\ufeff\u202e reversed text",
    "I prefer email \ud800 and I live in Milan\udfff.",
    "1" * 5000 + " € " + "9" * 5000,
    "+" * 300 + "1" * 300 + "(" * 300,
    "My wife " * 400,
    "¿" * 1000 + "?" * 1000,
    "\n\n\n".join(["Ok.", "", "  ", "Grazie!"]),
    "I'd rather ,,, than ;;;",
    "prefiero",
    "Preferisco",
    "I prefer.",
    "My wife.",
    "Per favore sempre",
    "por favor nunca",
]


@pytest.mark.parametrize("text", NASTY, ids=range(len(NASTY)))
@pytest.mark.parametrize("source", ["chat", "tool", "decision"])
def test_extract_never_raises_nor_returns_empty_content(text, source):
    for candidate in extract(text, source=source, observed_at=OBSERVED_AT):
        assert candidate.content.strip()
        assert candidate.content == candidate.content.strip()
        assert candidate.kind in Kind.values
        candidate.content.encode("utf-8")  # storable
    detect_language(text)
    spot_entities(text)


@pytest.mark.parametrize(
    ("text", "measures"),
    [
        ("it's at 180ms under 20 concurrent requests", {"ms": {"180"}, "concurrent": {"20"}}),
        ("I booked it for $1,250 per night", {"$": {"1250"}}),
        ("I've completed 3 sketches by March 14", {"sketche": {"3"}, "date": {"march 14"}}),
        ("it took 3 days, until March 14", {"day": {"3"}, "date": {"march 14"}}),
        ("I scored 4/5 on the quiz, up 20%", {"/5": {"4"}, "%": {"20"}}),
        ("ho fatto 10 ore il 3 aprile", {"ore": {"10"}, "date": {"3 aprile"}}),
        ("I moved it to 5 in the afternoon", {}),
    ],
)
def test_what_a_statement_measures(text, measures):
    """A number counts the word after it (singular), a currency, a share, a score out of a
    total or a day; grammar ("to 5 in") is not a measure."""
    assert stated_quantities(text) == {unit: frozenset(v) for unit, v in measures.items()}


@pytest.mark.parametrize(
    ("text", "whole", "apart"),
    [
        (
            "I'm trying to deploy my detection app on an EC2 instance by June 25, 2024, and I "
            "prefer lightweight Alpine-based containers for faster deployment.",
            "by June 25, 2024",
            "I prefer lightweight Alpine-based containers",
        ),
        (
            "I'm trying to set up a real-time chat app using Node.js and Socket.io, and I want "
            "to add error handling for multiple users.",
            "using Node.js and Socket.io",
            "I want to add error handling",
        ),
    ],
)
def test_a_clause_is_not_split_before_a_part_that_says_nothing_alone(text, whole, apart):
    """ "June 25" without its year, "Socket.io" without its app: the sentence splits at the
    "and" that begins the next statement, not at the comma or "and" before them."""
    contents = [c.content for c in extract(text, source="chat", observed_at=OBSERVED_AT)]
    assert any(whole in c for c in contents), contents
    assert any(c.startswith(apart) and whole not in c for c in contents), contents


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        # A change told in a past tense with the month it happened is what is true now,
        # not a plan: the month dates it.
        ("We moved to Turin in May.", "residence:turin"),
        ("A maggio ci siamo trasferiti a Torino.", "residence:torino"),
        ("Well, I separated from my husband in January.", "marital_status:separated"),
        ("We married in June.", "marital_status:married"),
        (
            "I left the bank in March and now I work freelance as a consultant.",
            "occupation:consultant",
        ),
    ],
)
def test_a_change_told_in_the_past_is_a_fact_dated_by_its_month(text, attribute):
    [candidate] = extract(text, speaker="client", observed_at=OBSERVED_AT)
    assert (candidate.kind, candidate.category) == ("semantic", "fact")
    assert f"{candidate.attribute}:{candidate.value}" == attribute
    assert candidate.occurred is not None and candidate.occurred.precision == "month"
    assert candidate.occurred.day <= OBSERVED_AT.date()
    assert candidate.expires_at is None


@pytest.mark.parametrize(
    "text",
    [
        "Please call me on Wednesdays.",
        "Mi chiami il mercoledì.",
        "Chiamami dopo le sei.",
        "Llámame los miércoles.",
        "Llámeme por las tardes.",
    ],
)
def test_asked_to_call_in_any_form_is_how_to_reach_the_client(text):
    """The imperative, familiar or polite, says how the client wants to be reached."""
    assert [
        (c.kind, c.category, c.attribute, c.value)
        for c in extract(text, speaker="client", observed_at=OBSERVED_AT)
    ] == [("semantic", "preference", "contact_channel", "phone")]


@pytest.mark.parametrize(
    ("text", "ahead"),
    [
        ("I've got about 50,000 euros in a term deposit that matures in June.", True),
        ("Ho circa 50.000 euro in un deposito vincolato che scade a giugno.", True),
        ("I got a raise in March.", False),
    ],
)
def test_what_one_has_got_is_not_a_past_tense(text, ahead):
    [candidate] = extract(text, speaker="client", observed_at=OBSERVED_AT)
    assert candidate.occurred is not None
    assert (candidate.occurred.day > OBSERVED_AT.date()) is ahead


@pytest.mark.parametrize(
    "text",
    [
        "They need to be back with the provider in a fortnight, and I'd rather you checked "
        "them first.",
        "Dentro de quince días tengo la inspección de Sanidad en la clínica y quiero tener "
        "la cabeza libre.",
        "Entro fine mese devo firmare il rogito dal notaio, e preferisco che lei ci sia.",
    ],
)
def test_a_plan_beside_a_preference_keeps_its_day(text):
    """A clause that names a day ahead is a plan of its own: it is not folded into the
    preference beside it, which never goes by, so it comes up and then becomes past."""
    plan, preference = extract(text, speaker="client", observed_at=OBSERVED_AT)
    assert plan.category in ("event", "constraint")
    assert plan.expires_at is not None and plan.expires_at > OBSERVED_AT
    assert (preference.category, preference.expires_at) == ("preference", None)


@pytest.mark.parametrize(
    "text",
    ["Estamos pensando en comprar un piso, quizás el año que viene.", "I left the bank in March."],
)
def test_a_day_alone_or_told_in_the_past_is_no_plan_of_its_own(text):
    assert len(extract(text, speaker="client", observed_at=OBSERVED_AT)) == 1


def test_what_one_needs_by_a_day_looks_ahead():
    [candidate] = extract(
        "By the end of March I need the money ready for my daughter's wedding.",
        speaker="client",
        observed_at=OBSERVED_AT,
    )
    assert candidate.expires_at is not None and candidate.expires_at > OBSERVED_AT


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Eh sì, ci siamo spostati a Barcellona.", "residence"),
        ("Siamo andati a vivere a Verona.", "residence"),
        ("Nos hemos ido a vivir a Bilbao.", "residence"),
        ("Nos hemos trasladado a Londres.", "residence"),
        ("I've taken a post at a private hospital in Cheshire.", "employer"),
        ("I've started a new job at Google.", "employer"),
        ("Ho accettato un posto in una startup di Torino.", "employer"),
        ("He aceptado un puesto en Iberdrola.", "employer"),
    ],
)
def test_a_move_or_a_new_job_in_other_words_is_where_the_client_lives_or_works(text, attribute):
    """Where the client lives and works now, said with the other verbs people use for it."""
    [candidate] = extract(text, speaker="client", observed_at=OBSERVED_AT)
    assert (candidate.kind, candidate.category, candidate.attribute) == (
        "semantic",
        "fact",
        attribute,
    )
