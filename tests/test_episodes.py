"""The episodic layer: every informative statement is kept, attributed and dated, through
ingest; greetings, thanks, reactions and content-free questions yield nothing."""

from datetime import date

import pytest

from memories.models import Client, Evidence, Kind, Memory, Precision
from memories.services.extraction.episodes import MAX_TOLD, informative_part
from memories.services.retrieval import memories_search

pytestmark = pytest.mark.django_db

SESSION_DAY = "2022-12-22T14:00:00Z"  # a Thursday
EPISODE = Kind.EPISODIC
DAY, WEEK, MONTH = Precision.DAY, Precision.WEEK, Precision.MONTH


def _memories(answer) -> list[Memory]:
    return [Memory.objects.get(pk=m["id"]) for m in answer["memories"]]


@pytest.mark.parametrize(
    ("speaker", "content", "kind", "subject", "occurred", "precision"),
    [
        # An advisor's notes about the client: about the client, whoever else they name.
        (
            "advisor",
            "Giulia Bernasconi keeps her pension savings at Banca Zurighese and wants "
            "quarterly reports.",
            Kind.SEMANTIC,
            "",
            None,
            "",
        ),
        (
            "advisor",
            "Prefers phone calls after 6pm because she works night shifts at the hospital.",
            Kind.SEMANTIC,
            "",
            None,
            "",
        ),
        # The client's own words, whatever the cue tables make of them.
        (
            "user",
            "Ho appena comprato una casa a Lugano con mia moglie.",
            Kind.EPISODIC,
            "",
            None,
            "",
        ),
        ("client", "No tengo hijos.", Kind.SEMANTIC, "", None, ""),  # children: 0
        # A person in a conversation between people speaks of themselves, and of a day.
        (
            "Maria",
            "In the meantime, I donated my old car to a homeless shelter I volunteer at yesterday.",
            EPISODE,
            "Maria",
            date(2022, 12, 21),
            Precision.DAY,
        ),
        (
            "user",
            "Sono andata a Parigi la settimana scorsa.",
            Kind.EPISODIC,
            "",
            date(2022, 12, 12),
            Precision.WEEK,
        ),
        (
            "user",
            "El mes pasado empecé a correr.",
            Kind.EPISODIC,
            "",
            date(2022, 11, 1),
            Precision.MONTH,
        ),
        (
            "user",
            "We sold the boat two weeks ago.",
            Kind.EPISODIC,
            "",
            date(2022, 12, 8),
            Precision.DAY,
        ),
    ],
)
def test_a_statement_is_kept_with_whom_it_is_about_and_when_it_happened(
    post_event, speaker, content, kind, subject, occurred, precision
):
    answer = post_event(content, speaker=speaker, session="s1", observed_at=SESSION_DAY)
    [memory] = _memories(answer)
    assert (memory.kind, memory.subject, memory.occurred_on, memory.occurred_precision) == (
        kind,
        subject,
        occurred,
        precision,
    )
    assert memory.speaker == speaker
    assert answer["memories"][0]["speaker"] == speaker
    assert answer["memories"][0]["occurred_on"] == (occurred.isoformat() if occurred else None)


@pytest.mark.parametrize(
    ("content", "occurred", "precision", "past_from"),
    [
        # A date that names its year means that year, ahead or behind; a question after it
        # does not cut the year off.
        (
            "I'm kinda worried that I won't be able to improve my essay grades from B- to A "
            "by June 15, 2024, so can you help me create a plan?",
            date(2024, 6, 15),
            DAY,
            "2024-06-16",
        ),
        ("The project kickoff was on January 10, 2024.", date(2024, 1, 10), DAY, None),
        ("El viaje a Lisboa es el 12 de abril de 2025.", date(2025, 4, 12), DAY, "2025-04-13"),
        # Without a year: a plan's day is the next one, what has been the latest one.
        ("I plan to return to Lugano on July 20.", date(2024, 7, 20), DAY, "2024-07-21"),
        ("We went to Rome on July 20.", date(2023, 7, 20), DAY, None),
        ("I'm getting married in June.", date(2024, 6, 1), MONTH, "2024-07-01"),
        ("Ci trasferiamo a Lugano entro marzo.", date(2024, 3, 1), MONTH, "2024-04-01"),
        ("I have a dentist appointment next Friday.", date(2024, 3, 8), DAY, "2024-03-09"),
        ("Yesterday I sold the car.", date(2024, 3, 2), DAY, None),
        # Spans ahead said roughly, in fortnights, as time left to do something, and days
        # of the month said as deadlines, in the three languages.
        ("The move should happen in about four months.", date(2024, 7, 3), DAY, "2024-07-04"),
        ("The policy renews in a fortnight.", date(2024, 3, 17), DAY, "2024-03-18"),
        ("Nos vemos dentro de quince días, en Úbeda.", date(2024, 3, 18), DAY, "2024-03-19"),
        ("Tengo diez días para pagar el depósito.", date(2024, 3, 13), DAY, "2024-03-14"),
        ("Ho una quindicina di giorni per decidere.", date(2024, 3, 18), DAY, "2024-03-19"),
        ("La rata del mutuo scade il 15.", date(2024, 3, 15), DAY, "2024-03-16"),
        ("El seguro vence el día 2.", date(2024, 4, 2), DAY, "2024-04-03"),
        # A deadline of someone else's is still a deadline: dated, and past once gone by.
        ("My daughter's school fees are due on 20 March.", date(2024, 3, 20), DAY, "2024-03-21"),
        # An appointment proposed as a question is a plan told.
        ("¿Quedamos dentro de tres semanas?", date(2024, 3, 24), DAY, "2024-03-25"),
        # Gone, not ahead: a month told in a past tense is the latest such month.
        ("Mio marito è andato in pensione a gennaio.", date(2024, 1, 1), MONTH, None),
        ("We moved to Turin in May.", date(2023, 5, 1), MONTH, None),
        ("Nos hemos mudado a Sevilla en febrero.", date(2024, 2, 1), MONTH, None),
    ],
)
def test_dates_as_said(post_event, content, occurred, precision, past_from):
    """Said on Sunday 3 March 2024: each statement keeps the day it says, past or ahead,
    and what is ahead becomes past once that day has gone by."""
    answer = post_event(content, speaker="user", session="s1", observed_at="2024-03-03T10:00:00Z")
    [memory] = _memories(answer)
    assert (memory.occurred_on, memory.occurred_precision) == (occurred, precision)
    expires = memory.expires_at.date().isoformat() if memory.expires_at else None
    assert expires == past_from


@pytest.mark.parametrize(
    "content",
    [
        "Hi!",
        "Hey Maria! Long time no see!",
        "Thanks so much, that's great!",
        "Wow, that sounds amazing!",
        "Me too!",
        "How are you doing?",
        "Anything exciting happening for you?",
        "Grazie mille, a presto!",
        "¡Hola! ¿Qué tal?",
        "Yeah, I love it!",
        "That's so cool, Caroline!",
        "Ok, sounds like a plan.",
        "Perfect, thank you.",
        "Ok, perfect, thanks.",
        "Excellent, understood.",
        "Va bene, perfetto, grazie.",
        "Benissimo, capito.",
        "Vale, estupendo, gracias.",
        "Excelente, entendido.",
        "Morning!",
        "Evening, all.",
        "Good afternoon, Marco!",
        "Hey there!",
        "Buonasera a tutti!",
        "¡Buenas, chicos!",
        # A name said to the listener is no statement, before a greeting or after thanks.
        "Álvaro, buenos días.",
        "Gracias, Elena. Hasta la próxima.",
    ],
)
def test_small_talk_yields_nothing(post_event, content):
    assert post_event(content, speaker="user")["memories"] == []


@pytest.mark.parametrize(
    "content",
    [
        "¿Cómo prefiere que le contacte?",
        "Ci sono ambiti in cui preferisce non investire?",
        "La casa è di proprietà?",
        "And how would you like to receive your statements?",
    ],
)
def test_an_advisors_question_yields_nothing(post_event, content):
    """What the advisor asks, the client answers: the question itself says nothing of the
    client (a question of the client's own about their affairs is kept)."""
    assert post_event(content, speaker="advisor")["memories"] == []


def test_an_advisor_proposing_a_day_is_kept(post_event):
    answer = post_event("Shall we meet next Tuesday at ten?", speaker="advisor", days_ago=0)
    assert [m["content"] for m in answer["memories"]] == ["Shall we meet next Tuesday at ten?"]


def test_a_greeting_before_a_statement_is_left_out_of_it(post_event):
    memories = post_event("Morning! I moved to Zurich last month.", speaker="user")["memories"]
    assert [m["content"] for m in memories] == ["I moved to Zurich last month."]


def test_what_the_cue_tables_hold_is_not_kept_twice(post_event):
    answer = post_event(
        "Hi! I prefer to be contacted by email. We just got back from a week in Crete.",
        speaker="user",
    )
    assert [(m["kind"], m["content"]) for m in answer["memories"]] == [
        ("semantic", "I prefer to be contacted by email."),
        ("episodic", "We just got back from a week in Crete."),
    ]


def test_what_a_sentence_says_beside_its_typed_memory_is_kept(post_event):
    """Only a clause of a long sentence matches a cue: the rest is kept in the episode, the
    request that ends it left out ("can you help?" asks of what was said)."""
    memories = post_event(
        "I need help with my nightly batch job, and I also want detailed logs for the "
        "failures, but since I've never customized the parsing pipeline, I'm not sure where "
        "to start, can you help?",
        speaker="user",
    )["memories"]
    assert [(m["kind"], m["content"]) for m in memories] == [
        ("semantic", "and I also want detailed logs for the failures"),
        (
            "episodic",
            "I need help with my nightly batch job … but since I've never customized the "
            "parsing pipeline, I'm not sure where to start",
        ),
    ]
    # A request after a statement adds nothing of its own.
    answer = post_event("I'm saving for a house, so can you suggest a plan?", speaker="user")
    assert [m["content"] for m in answer["memories"]] == ["I'm saving for a house"]


@pytest.mark.parametrize(
    ("said", "event", "query"),
    [
        (
            "Hey Sam! Last weekend I took my family on a road trip to Jasper. It was amazing! "
            "We drove the Icefields Parkway and the glaciers were gorgeous. How about you? "
            "The drive back took nine hours.",
            "Last weekend I took my family on a road trip to Jasper. We drove the Icefields "
            "Parkway and the glaciers were gorgeous.",
            "When did we drive the Icefields Parkway?",
        ),
        (
            "Sabato scorso siamo andati a Como con i bambini. Che bello! Abbiamo fatto il giro "
            "del lago in battello. E voi? The drive back took nine hours.",
            "Sabato scorso siamo andati a Como con i bambini. Abbiamo fatto il giro del lago in "
            "battello.",
            "Quando abbiamo fatto il giro del lago in battello?",
        ),
        (
            "El sábado pasado fuimos a Toledo con los niños. ¡Qué bonito! Visitamos la catedral "
            "y comimos mazapán. ¿Y vosotros? The drive back took nine hours.",
            "El sábado pasado fuimos a Toledo con los niños. Visitamos la catedral y comimos "
            "mazapán.",
            "¿Cuándo comimos mazapán?",
        ),
    ],
)
def test_an_event_keeps_what_is_told_of_it(post_event, personas, said, event, query):
    """What the speaker goes on to tell of a dated event is the event's, dated with it: a
    question about the details finds the day. A question ends the telling."""
    memories = post_event(said, speaker="user", observed_at=SESSION_DAY)["memories"]
    assert [(m["kind"], m["content"], m["occurred_on"]) for m in memories] == [
        ("episodic", event, "2022-12-17"),
        ("episodic", "The drive back took nine hours.", None),
    ]
    [hit] = memories_search(
        client=Client.objects.get(tenant=personas.tenant, external_ref="emma"), query=query, k=1
    )
    assert (hit.memory.content, hit.memory.occurred_on) == (event, date(2022, 12, 17))


@pytest.mark.parametrize(
    ("after", "kept"),
    [
        # A statement the cue tables type is a memory of its own.
        ("I prefer trains to planes.", ("semantic", "I prefer trains to planes.")),
        # Another day is another event.
        (
            "Next month I start a pottery course.",
            ("episodic", "Next month I start a pottery course."),
        ),
        # A pasted listing is kept as said, in the episode.
        ("```\nroute: jasper\n```", ("episodic", "``` route: jasper ```")),
    ],
)
def test_what_ends_the_telling_of_an_event(post_event, after, kept):
    memories = post_event(
        f"Last weekend we drove to Jasper.\n{after}", speaker="user", observed_at=SESSION_DAY
    )["memories"]
    assert sorted((m["kind"], m["content"]) for m in memories) == sorted(
        [("episodic", "Last weekend we drove to Jasper."), kept]
    )


def test_an_event_keeps_no_more_than_a_few_sentences_of_what_follows(post_event):
    details = " ".join(f"Day {n} we hiked a different trail near the lake." for n in range(1, 12))
    [event, *rest] = post_event(
        f"Last weekend we drove to Banff with the kids. {details}",
        speaker="user",
        observed_at=SESSION_DAY,
    )["memories"]
    assert event["content"].startswith("Last weekend we drove to Banff with the kids. Day 1 ")
    assert len(event["content"]) <= MAX_TOLD
    # What the event could not hold is kept, a statement a sentence.
    assert rest and all(m["kind"] == "episodic" for m in rest)
    assert "Day 11" in rest[-1]["content"]


LISTING = """I prefer short answers. Here is my scheduler:
```python
# I prefer to run the jobs at night
def plan(tasks):
    return sorted(tasks)
```
I live in Milan."""


def test_a_pasted_listing_is_kept_as_said_and_read_for_nothing(post_event):
    """A comment in code is not the speaker's preference: the listing stays in the episode
    (where a search for the code finds it), the prose around it is read as usual."""
    memories = post_event(LISTING, speaker="user")["memories"]
    assert [(m["kind"], m["category"], m["content"]) for m in memories] == [
        ("semantic", "preference", "I prefer short answers."),
        ("semantic", "fact", "I live in Milan."),
        (
            "episodic",
            "event",
            "Here is my scheduler: ```python # I prefer to run the jobs at night def "
            "plan(tasks): return sorted(tasks) ```",
        ),
    ]


def test_the_assistant_s_words_are_context_not_memory(post_event, personas):
    post_event("Which city did you move to last spring?", speaker="assistant", session="s1")
    answer = post_event("Bristol, near the harbour.", speaker="user", session="s1")
    [memory] = _memories(answer)
    assert memory.context == "Which city did you move to last spring?"
    [hit] = memories_search(
        client=Client.objects.get(tenant=personas.tenant, external_ref="emma"),
        query="which city did she move to",
        k=1,
    )
    assert hit.memory.pk == memory.pk


def test_the_same_episode_told_twice_in_a_session_is_one(post_event):
    first = post_event("We went hiking in the Dolomites.", speaker="user", session="s1")
    again = post_event("We went hiking in the Dolomites.", speaker="user", session="s1")
    other = post_event("We went hiking in the Dolomites.", speaker="user", session="s2")
    assert again["memories"][0]["action"] == Evidence.Action.DEDUPLICATED
    assert again["memories"][0]["id"] == first["memories"][0]["id"]
    assert other["memories"][0]["action"] == Evidence.Action.ADDED  # another day, another hike


def test_search_names_who_said_it_and_when(post_event, agent_key, api_client):
    post_event(
        "Yesterday I finally finished the pottery class.",
        speaker="Maria",
        session="s1",
        observed_at=SESSION_DAY,
    )
    post_event("I started a new job at the library.", speaker="John", session="s1")
    answer = api_client.post(
        "/api/v1/search/",
        {"client": "emma", "query": "What did Maria finish?", "k": 1, "explain": True},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    ).json()
    [hit] = answer["results"]
    assert (hit["speaker"], hit["subject"], hit["occurred_on"], hit["occurred_precision"]) == (
        "Maria",
        "Maria",
        "2022-12-21",
        "day",
    )
    assert hit["scores"]["speaker"] == 1.0


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        # The speaker's own question is kept whole, with what led to it: it tells what
        # they are doing. A question about the listener, or one with no subject, is not.
        (
            "I moved to Zurich last month, can you update my address?",
            "I moved to Zurich last month, can you update my address?",
        ),
        ("I moved to Zurich last month, can you help?", "I moved to Zurich last month"),
        (
            "hmm, how do I set up Redis for caching user sessions?",
            "how do I set up Redis for caching user sessions?",
        ),
        ("Should I sell my flat before the move?", "Should I sell my flat before the move?"),
        ("¿Puedo mover mi cuenta a Lugano?", "¿Puedo mover mi cuenta a Lugano?"),
        ("Posso spostare il mio conto a Milano?", "Posso spostare il mio conto a Milano?"),
        # The question runs from its first asking part: the speaker is in it, though not
        # in the part after its last comma.
        (
            "I'm curious, what recipes can I try in the longer sessions, since they were "
            "extended by 30 minutes?",
            "I'm curious, what recipes can I try in the longer sessions, since they were "
            "extended by 30 minutes?",
        ),
        # A question that tells a figure tells something, whoever it is about.
        (
            "How can Scott keep his homework completion rate of 92% through June?",
            "How can Scott keep his homework completion rate of 92% through June?",
        ),
        ("What time is it, 5 or 6?", ""),
        # A number word is no figure.
        ("Is this the one you sent to the film contest?", ""),
        ("How far did you two hike?", ""),
        # A dash sets the request apart, as a comma does.
        (
            "I need to shorten the session to 2 hours - can you help?",
            "I need to shorten the session to 2 hours",
        ),
        ("Can you help me?", ""),
        ("Where should I go?", ""),
        ("What made you decide to adopt a dog?", ""),
        ("Cool, how was your weekend?", ""),
        ("Good to see you.", ""),
        ("I'm vegetarian.", "I'm vegetarian."),
        ("What a great idea!", ""),
        ("Congrats on the new job, Mel!", "Congrats on the new job"),
    ],
)
def test_the_informative_part_of_a_sentence(sentence, kept):
    assert informative_part(sentence) == kept
