"""A question about several things at once: each has a place in the answer
(retrieval/aspects.py)."""

from __future__ import annotations

import pytest

from memories.services.retrieval import memories_search
from memories.services.retrieval.aspects import aspects
from tests.support.encryption import client_who_said


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How much have I paid in total for the USCIS filing fees and the medical exam?",
            ["How much have I paid in total for the USCIS filing fees", "the medical exam"],
        ),
        (
            "How do the prices for the Dell XPS 13, MacBook Air M2, and Lenovo ThinkPad X1 "
            "Carbon compare?",
            [
                "How do the prices for the Dell XPS 13",
                "MacBook Air M2",
                "Lenovo ThinkPad X1 Carbon compare",
            ],
        ),
        (
            "Quanto ho speso per l'affitto di marzo e per l'abbonamento della palestra?",
            ["Quanto ho speso per l'affitto di marzo", "per l'abbonamento della palestra"],
        ),
        (
            "¿Cuánto pagué por el seguro del coche y por la revisión del dentista?",
            ["¿Cuánto pagué por el seguro del coche", "por la revisión del dentista"],
        ),
        # Two moments: the clause after the time word ends where the question's verb returns.
        (
            "How many days after I moved my dentist appointment did I book the car service?",
            ["I moved my dentist appointment", "I book the car service"],
        ),
        (
            "How many weeks before the piano recital was the rehearsal room booked?",
            ["the piano recital", "the rehearsal room booked"],
        ),
        (
            "Quanti giorni dopo il trasloco a Torino ho prenotato la visita dal dentista?",
            ["il trasloco a Torino", "prenotato la visita dal dentista"],
        ),
        ("What did I cook after the long hike?", []),
        ("Have I ever run a marathon before?", []),
        # A part that names nothing is no aspect ("May so far"), and one aspect is no list.
        ("How much did I spend on groceries in April and May so far?", []),
        ("What did my sister and I cook on Sunday?", []),
        ("When is the dentist appointment?", []),
        # Five things are a list to read as a whole.
        (
            "How did my monthly rent, gym fees, car insurance, phone plan, and streaming "
            "subscriptions change?",
            [],
        ),
    ],
)
def test_the_aspects_of_a_question(question, parts):
    assert aspects(question) == parts


@pytest.mark.django_db
@pytest.mark.parametrize("encrypted", [False, True], ids=["clear", "sealed"])
def test_each_thing_a_question_lists_has_a_place_in_the_answer(encrypted):
    """Asked about two costs at once, the answer holds the statement about the second,
    which a dozen statements about the first outrank for the whole question; and the first
    results are the same at every ``k``."""
    client = client_who_said(
        "I paid the USCIS filing fee of 535 dollars for the I-130 petition.",
        "The USCIS filing fee for the I-485 was 1,140 dollars.",
        "The I-765 work permit filing with USCIS cost me 260 dollars.",
        "USCIS charged 85 dollars for the biometrics with my filing.",
        "I paid the USCIS fees of 1,760 dollars with a money order.",
        "USCIS raised the filing fees by 300 dollars this spring.",
        "The USCIS fee calculator said my filing fees come to 1,935 dollars.",
        "My lawyer's fee for the USCIS filing was 1,500 dollars.",
        "I budgeted 3,000 dollars for all the USCIS filing fees.",
        "USCIS cashed my check of 535 dollars for the filing fee last week.",
        "The late filing would have cost 200 dollars more in USCIS fees.",
        "I paid 50 dollars to courier the USCIS filing.",
        "The immigration doctor checked my vaccinations, which came to 220 dollars.",
        encrypted=encrypted,
    )
    question = "How much have I paid in total for the USCIS filing fees and the medical exam?"

    def search(k):
        return memories_search(client=client, query=question, k=k, record_access=False)

    hits = search(10)
    exam = [h for h in hits if "doctor" in h.memory.content]
    assert exam, [h.memory.content for h in hits]
    assert exam[0].scores["aspect"] == 1.0
    assert all(h.scores["aspect"] == 0.0 for h in hits if h is not exam[0])
    assert [h.memory.pk for h in search(50)[:10]] == [h.memory.pk for h in hits]
    assert [h.memory.pk for h in search(5)] == [h.memory.pk for h in hits[:5]]


@pytest.mark.django_db
def test_nonsense_listed_is_still_answered_with_nothing():
    client = client_who_said("The civil surgeon charged me 220 dollars for the medical exam.")
    question = "Which volcanic glaciers and submarine orchestras did the penguins audit?"
    assert memories_search(client=client, query=question, k=10, record_access=False) == []
