"""A standing instruction comes back with the questions it is for (retrieval/scope.py)."""

from __future__ import annotations

import pytest

from memories.services.retrieval import memories_search, ranking_weights
from memories.services.retrieval.scope import in_scope, query_stems, scope_words
from tests.support.encryption import client_who_said


@pytest.mark.parametrize(
    ("instruction", "scope"),
    [
        ("Always show each step when I ask about distance formulas.", {"distan", "formul"}),
        ("When we talk about the budget, never round the figures.", {"budget"}),
        ("Whenever I'm asking you about meeting schedules, use 24-hour time.", {"meet", "schedu"}),
        ("Always include the fees for questions about funds.", {"fund"}),
        ("Quando ti chiedo dei fondi, indica sempre le commissioni.", {"fondi"}),
        ("Se parliamo di tasse, dammi sempre la scadenza.", {"tasse"}),
        ("Cuando te pregunte por impuestos, dame siempre la fecha límite.", {"impues"}),
        ("Si hablamos de la hipoteca, usa siempre euros.", {"hipote"}),
        # No scope: what the instruction is for is in its words alone.
        ("Always answer in a formal tone.", set()),
        ("I always ask about the fees first.", set()),
        ("When I ask about it, keep it short.", set()),
    ],
)
def test_what_an_instruction_is_for(instruction, scope):
    assert scope_words(instruction) == scope


def test_the_share_of_the_scope_a_question_is_in():
    scope = scope_words("Always use 24-hour time format when I ask about meeting schedules.")
    assert in_scope(scope, query_stems("What time is our next meeting scheduled for?")) == 1
    assert in_scope(scope, query_stems("What did I say about the meeting room?")) == 0.5
    assert in_scope(scope, query_stems("How much is the invoice?")) == 0
    assert in_scope(frozenset(), query_stems("What time is our next meeting?")) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("encrypted", [False, True], ids=["clear", "sealed"])
def test_an_instruction_comes_back_with_the_questions_it_is_for(encrypted):
    """Asked about meeting times, the instruction for meeting schedules goes first, before
    the statements that share more of the question's words; asked about something else, no
    memory is in scope. A sealed tenant's instructions are read as a clear one's."""
    client = client_who_said(
        "Always use 24-hour time format when I ask about meeting schedules.",
        "Always answer in a formal tone when I ask about invoices.",
        "Our next meeting with the design team is on Thursday at 3 pm.",
        "The time of the next board meeting is still to be agreed.",
        encrypted=encrypted,
    )
    weights = ranking_weights() | {"scope": 1.0}

    def search(query):
        return memories_search(
            client=client, query=query, k=4, weights=weights, record_access=False
        )

    hits = search("What time is our next meeting scheduled for?")
    assert hits[0].memory.content.startswith("Always use 24-hour time")
    assert [h.scores["scope"] for h in hits] == [1.0, 0, 0, 0]
    assert {h.scores["scope"] for h in search("Who designs the new logo?")} <= {0}


@pytest.mark.django_db
def test_an_instruction_said_scope_first_is_scoped_in_italian_and_spanish():
    """An instruction said scope first ("Quando ti chiedo dei fondi, indica sempre…") is
    stored as one, so the question it is for finds it in scope."""
    client = client_who_said(
        "Quando ti chiedo dei fondi, indica sempre le commissioni.",
        "Cuando te pregunte por impuestos, dame siempre la fecha límite.",
    )
    for query, opening in (
        ("Quali fondi mi consigli per la pensione?", "Quando ti chiedo dei fondi"),
        ("¿Cuántos impuestos pago este año?", "Cuando te pregunte por impuestos"),
    ):
        hits = memories_search(client=client, query=query, k=2, record_access=False)
        assert hits[0].memory.content.startswith(opening)
        assert hits[0].memory.category == "preference"
        assert hits[0].scores["scope"] == 1.0
