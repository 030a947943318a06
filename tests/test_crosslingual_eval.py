"""The cross-lingual evaluation: the shipped set holds what it was designed to, a run on a
slice of it reports figures that follow from what each question got back, and leaves
nothing behind. Nothing here judges the model: its quality is what the benchmark measures."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from memories.evaluation import crosslingual
from memories.evaluation.crosslingual import (
    CROSSLINGUAL,
    DIRECTIONS,
    NONSENSE,
    SAME_LANGUAGE,
    Outcome,
    evaluate,
    problems,
    summarise,
)
from memories.models import Event, Memory, Tenant

SHIPPED = crosslingual.load()


def _kinds(dataset: dict) -> tuple[Counter, Counter, Counter]:
    directions: Counter = Counter()
    same: Counter = Counter()
    nonsense: Counter = Counter()
    for spec in dataset["clients"]:
        lang_of = {s["id"]: s["lang"] for s in spec["statements"]}
        for question in spec["questions"]:
            statement_lang = lang_of[question["statement"]]
            if question["lang"] == statement_lang:
                same[question["lang"]] += 1
            else:
                directions[f"{question['lang']}→{statement_lang}"] += 1
        nonsense.update(q["lang"] for q in spec["nonsense"])
    return directions, same, nonsense


def test_the_shipped_set_holds_what_it_was_designed_to():
    assert problems(SHIPPED) == []
    clients = SHIPPED["clients"]
    assert len(clients) >= 6
    for spec in clients:
        assert 12 <= len(spec["statements"]) <= 20, spec["ref"]
        assert {s["lang"] for s in spec["statements"]} == {"en", "it", "es"}, spec["ref"]
        assert {s["speaker"] for s in spec["statements"]} == {"client", "advisor"}, spec["ref"]
    directions, same, nonsense = _kinds(SHIPPED)
    assert set(directions) == set(DIRECTIONS)
    assert min(directions.values()) >= 12
    assert sum(directions.values()) >= 90
    assert set(same) == {"en", "it", "es"} and sum(same.values()) >= 30
    assert set(nonsense) == {"en", "it", "es"} and sum(nonsense.values()) >= 24
    assert {q["about"] for spec in clients for q in spec["nonsense"]} == {"absent", "absurd"}


def test_a_data_set_that_names_a_missing_statement_is_refused():
    broken = copy.deepcopy(SHIPPED)
    broken["clients"][0]["questions"][0]["statement"] = "nowhere"
    with pytest.raises(ValueError, match="no statement 'nowhere'"):
        evaluate(dataset=broken, progress=None)


def _slice() -> tuple[dict, dict]:
    """Three clients from the shipped set: one whose memory is a single statement, asked
    about in other languages and in its own words; one with no memory at all; one whose
    two statements are in two languages. Each of the last two gets a nonsense question."""
    first, second = SHIPPED["clients"][0], SHIPPED["clients"][1]
    statement = first["statements"][0]
    asked = [
        q
        for q in first["questions"]
        if q["statement"] == statement["id"] and q["lang"] != statement["lang"]
    ]
    own_words = {
        "id": "own-words",
        "lang": statement["lang"],
        "statement": statement["id"],
        "text": statement["text"],
    }
    one = {**first, "statements": [statement], "questions": [*asked, own_words], "nonsense": []}
    empty = {
        "ref": "xl-empty",
        "text_language": "english",
        "sessions": {},
        "statements": [],
        "questions": [],
        "nonsense": [first["nonsense"][0]],
    }
    pair = [second["statements"][0]]
    pair.append(next(s for s in second["statements"] if s["lang"] != pair[0]["lang"]))
    two = {**second, "statements": pair, "questions": [], "nonsense": [second["nonsense"][0]]}
    return {"clients": [one, empty, two]}, statement


@pytest.mark.django_db
def test_a_run_on_a_slice_reports_what_each_question_got_back(settings):
    dataset, statement = _slice()
    report = evaluate(dataset=dataset, k=5, progress=None)

    assert set(report) == {
        "k",
        "embedding",
        "dataset",
        CROSSLINGUAL,
        SAME_LANGUAGE,
        NONSENSE,
        "questions",
    }
    assert report["k"] == 5
    embedding = report["embedding"]
    assert embedding["configured"] == list(settings.MEMORYHUB_EMBEDDING_PROVIDERS)
    assert [p["name"] for p in embedding["chain"]] == embedding["configured"]
    assert embedding["stored"] and embedding["stored"][0]["vectors"] > 0
    assert embedding["stored"][0]["provider"] in embedding["configured"]

    outcomes = {q["id"]: q for q in report["questions"]}
    cross = [q for q in report["questions"] if q["kind"] == CROSSLINGUAL]
    assert report["dataset"] == {
        "clients": 3,
        "questions": {CROSSLINGUAL: len(cross), SAME_LANGUAGE: 1, NONSENSE: 2},
    }
    assert cross and all(q["statement"] == statement["id"] for q in cross)

    # The statement is the client's only memory: its own words find it first.
    own = outcomes["own-words"]
    assert own["rank"] == 1 and own["top"]["evidence"] == [statement["id"]]
    assert report[SAME_LANGUAGE] == {
        "questions": 1,
        "hit@1": 1.0,
        "hit@5": 1.0,
        "empty": 0.0,
        "by_language": {
            statement["lang"]: {"questions": 1, "hit@1": 1.0, "hit@5": 1.0, "empty": 0.0}
        },
    }
    # Whatever the model makes of the other languages: every memory rests on that one
    # statement, so a question that gets anything back finds it first.
    for question in cross:
        assert question["rank"] == (1 if question["returned"] else None)
        assert question["direction"] == f"{question['lang']}→{statement['lang']}"
    found = sum(q["returned"] > 0 for q in cross) / len(cross)
    assert report[CROSSLINGUAL]["hit@1"] == report[CROSSLINGUAL]["hit@5"] == round(found, 4)
    assert report[CROSSLINGUAL]["empty"] == round(1 - found, 4)
    assert set(report[CROSSLINGUAL]["by_direction"]) == {q["direction"] for q in cross}

    # A client with no memory answers nothing; only the other is a mixed-language client.
    nothing = outcomes[dataset["clients"][1]["nonsense"][0]["id"]]
    assert nothing["returned"] == 0 and nothing["top"] is None and not nothing["mixed"]
    mixed = outcomes[dataset["clients"][2]["nonsense"][0]["id"]]
    assert mixed["mixed"] is True
    assert report[NONSENSE]["questions"] == 2
    assert report[NONSENSE]["empty"] == (1 + (mixed["returned"] == 0)) / 2
    assert report[NONSENSE]["mixed_clients"] == {
        "questions": 1,
        "empty": float(mixed["returned"] == 0),
    }

    assert Tenant.objects.count() == 0
    assert Event.objects.count() == Memory.objects.count() == 0


def _outcome(kind, lang, *, statement_lang=None, rank=None, returned=5, mixed=True, about=None):
    return Outcome(
        id="q",
        client="c1" if mixed else "c2",
        kind=kind,
        lang=lang,
        text="…",
        mixed=mixed,
        returned=returned,
        rank=rank,
        statement="s" if statement_lang else None,
        statement_lang=statement_lang,
        about=about,
    )


def test_the_figures_count_each_direction_language_and_client_apart():
    outcomes = [
        _outcome(CROSSLINGUAL, "en", statement_lang="it", rank=1),
        _outcome(CROSSLINGUAL, "en", statement_lang="it", rank=3),
        _outcome(CROSSLINGUAL, "en", statement_lang="it", rank=None),
        _outcome(CROSSLINGUAL, "en", statement_lang="it", rank=None, returned=0),
        _outcome(CROSSLINGUAL, "es", statement_lang="en", rank=6),  # past k: no hit
        _outcome(SAME_LANGUAGE, "it", statement_lang="it", rank=2),
        _outcome(SAME_LANGUAGE, "es", statement_lang="es", rank=1),
        _outcome(NONSENSE, "en", returned=0, about="absent"),
        _outcome(NONSENSE, "it", returned=2, about="absurd"),
        _outcome(NONSENSE, "it", returned=0, mixed=False, about="absurd"),
    ]
    figures = summarise(outcomes, k=5)

    assert figures["dataset"] == {
        "clients": 2,
        "questions": {CROSSLINGUAL: 5, SAME_LANGUAGE: 2, NONSENSE: 3},
    }
    assert figures[CROSSLINGUAL] == {
        "questions": 5,
        "hit@1": 0.2,
        "hit@5": 0.4,
        "empty": 0.2,
        "by_direction": {
            "en→it": {"questions": 4, "hit@1": 0.25, "hit@5": 0.5, "empty": 0.25},
            "es→en": {"questions": 1, "hit@1": 0.0, "hit@5": 0.0, "empty": 0.0},
        },
    }
    assert figures[SAME_LANGUAGE] == {
        "questions": 2,
        "hit@1": 0.5,
        "hit@5": 1.0,
        "empty": 0.0,
        "by_language": {
            "it": {"questions": 1, "hit@1": 0.0, "hit@5": 1.0, "empty": 0.0},
            "es": {"questions": 1, "hit@1": 1.0, "hit@5": 1.0, "empty": 0.0},
        },
    }
    assert figures[NONSENSE] == {
        "questions": 3,
        "empty": 0.6667,
        "mixed_clients": {"questions": 2, "empty": 0.5},
        "by_language": {
            "en": {"questions": 1, "empty": 1.0},
            "it": {"questions": 2, "empty": 0.5},
        },
        "by_topic": {
            "absent": {"questions": 1, "empty": 1.0},
            "absurd": {"questions": 2, "empty": 0.5},
        },
    }
