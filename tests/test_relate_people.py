"""What the client says about the people in their life: who a person is to the client,
and facts about that person (where they live, where they work), each with its own key."""

import pytest

from memories.models import Memory, Status


def _live_contents(personas) -> list[str]:
    return sorted(
        Memory.objects.filter(client=personas.client, status=Status.ACTIVE).values_list(
            "content", flat=True
        )
    )


@pytest.mark.django_db
def test_something_new_about_a_person_is_not_a_duplicate_of_who_they_are(personas, post_event):
    post_event("My husband Marcus works at GKN Aerospace.", days_ago=3)
    (new,) = post_event("My husband Marcus loves golf.")["memories"]
    assert new["action"] == "added"
    assert _live_contents(personas) == [
        "My husband Marcus loves golf.",
        "My husband Marcus works at GKN Aerospace.",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My fiancé Marcus works at Airbus in Filton.", "My husband Marcus works at GKN now."),
        ("My sister Anna lives in Leeds.", "My sister Anna lives in Bristol now."),
        ("Mio marito Paolo lavora presso Enel.", "Mio marito Paolo lavora presso Eni adesso."),
        ("Mi hermana Lucía vive en Sevilla.", "Mi hermana Lucía vive en Valencia ahora."),
    ],
)
def test_a_new_fact_about_the_same_person_supersedes_the_old_one(personas, said_later, old, new):
    assert said_later(old, new) == ("updated", Status.SUPERSEDED)


@pytest.mark.django_db
def test_the_same_fact_about_another_person_leaves_the_first_alone(personas, said_later):
    old, new = "My husband Marcus works at GKN Aerospace.", "My brother Luca works at Airbus."
    assert said_later(old, new) == ("added", Status.ACTIVE)


@pytest.mark.django_db
def test_who_a_person_is_said_twice_is_one_memory(personas, post_event):
    post_event("My accountant is Sarah Cole.", days_ago=3)
    (again,) = post_event("Sarah Cole is my accountant.")["memories"]
    assert again["action"] == "deduplicated"
    (other,) = post_event("My accountant is Tom Reed now.")["memories"]
    assert other["action"] == "updated"
