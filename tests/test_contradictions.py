"""Contradictions beyond the attribute list: a changed preference on the same topic, a
negated fact, a reversed decision (en/it/es), caught through ingest; near misses are not."""

import pytest

from memories.evaluation import contradictions
from memories.models import Memory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "I prefer concise answers, please keep replies short.",
            "Actually, I now prefer long, detailed answers with all the numbers.",
        ),
        ("Mia moglie Giulia lavora in banca.", "Non sono sposato."),
        (
            "I prefer to be contacted by phone in the evening.",
            "Actually, I prefer email, not by phone.",
        ),
        (
            "We decided to sell the house in Bristol.",
            "We decided not to sell the house in Bristol after all.",
        ),
        ("Tengo un hijo.", "No tengo hijos."),
    ],
)
def test_a_later_statement_that_contradicts_is_updated_or_a_conflict(said_later, old, new):
    action, old_status = said_later(old, new)
    assert action in ("updated", "conflict")
    assert old_status == ("superseded" if action == "updated" else "active")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I love investing in tech stocks.", "I also like healthcare stocks."),
        ("My wife Sarah works as a teacher.", "My wife Sarah loves gardening."),
        ("We decided to sell the house in Bristol.", "We decided to sell the car too."),
        ("Vivo en Sevilla.", "Mi hermano vive en Madrid."),
    ],
)
def test_a_near_miss_is_not_a_contradiction(said_later, old, new):
    action, old_status = said_later(old, new)
    assert action not in ("updated", "conflict")
    assert old_status == "active"


def test_two_preferences_of_one_noun_that_say_two_things_are_both_kept(post_event):
    """Both are keyed ``preference:problems`` with the same value; the second is not the
    first said again, and its words must not be lost in the first's evidence."""
    first = post_event(
        "I prefer solving problems with stepwise algebraic methods before graphing.", days_ago=30
    )["memories"][0]
    (second,) = post_event(
        "I prefer solving problems with exact fractions before converting to decimals."
    )["memories"]
    assert second["action"] in ("added", "extended")
    assert second["id"] != first["id"]
    assert Memory.objects.get(pk=first["id"]).status == "active"
    kept = Memory.objects.get(pk=second["id"])
    assert kept.content == (
        "I prefer solving problems with exact fractions before converting to decimals."
    )
    assert kept.attribute == Memory.objects.get(pk=first["id"]).attribute == "preference:problems"


def test_a_preference_said_again_in_fewer_words_is_a_duplicate(post_event):
    first = post_event(
        "I prefer using positive reinforcement to motivate my son with his chores.", days_ago=30
    )["memories"][0]
    again = post_event("Since I prefer positive reinforcement, how can I reward him?")
    said = [m for m in again["memories"] if m["id"] == first["id"]]
    assert [m["action"] for m in said] == ["deduplicated"]


def test_the_labelled_pairs_precision_and_recall():
    result = contradictions.evaluate(contradictions.load())
    assert result["overall"]["pairs"] >= 60
    assert result["overall"]["precision"] == 1.0
    assert result["overall"]["recall"] >= 0.95
    assert result["by_set"]["held-out"]["precision"] == 1.0


def test_two_people_speak_for_themselves(post_event):
    """In a conversation between people, one person's statement neither repeats nor
    contradicts the other's: each is about its speaker."""
    said = post_event("My husband and I went hiking last weekend.", speaker="Melanie", days_ago=30)
    first = said["memories"][0]
    answer = post_event("I'm not married yet.", speaker="Caroline")
    assert [m["action"] for m in answer["memories"]] == ["added"]
    assert Memory.objects.get(pk=first["id"]).status == "active"
    again = post_event("I'm not married yet.", speaker="Melanie")
    assert [m["action"] for m in again["memories"]] in (["updated"], ["conflict"])
    twice = [post_event("I love hiking.", speaker=who)["memories"][0] for who in ("Jon", "Gina")]
    assert [m["action"] for m in twice] == ["added", "added"]
    assert {m["subject"] for m in twice} == {"Jon", "Gina"}
