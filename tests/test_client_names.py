"""A question names the client it is about ("Where does Lorenza live now?"): the name says
nothing about which of the client's memories answers it."""

from types import SimpleNamespace

import pytest

from memories.services.retrieval.names import client_names, without_client

pytestmark = pytest.mark.django_db


def _client(ref: str, display_name: str = ""):
    return SimpleNamespace(external_ref=ref, display_name=display_name)


@pytest.mark.parametrize(
    ("ref", "display_name", "names"),
    [
        ("lorenza-bertolini", "", {"lorenza", "bertolini"}),
        ("adv-alvaro-castaneda", "", {"adv", "alvaro", "castaneda"}),
        ("Marta.Llorente", "", {"marta", "llorente"}),
        ("client-00042", "Hannah Whitfield", {"hannah", "whitfield"}),  # a code is no name
        ("c3f9a1", "", set()),
    ],
)
def test_the_clients_names(ref, display_name, names):
    assert client_names(_client(ref, display_name)) == names


@pytest.mark.parametrize(
    ("query", "left"),
    [
        ("Where does Lorenza live now?", "Where does live now?"),
        ("What's Lorenza's risk profile?", "What's risk profile?"),
        ("Dove abita oggi la famiglia Bertolini?", "Dove abita oggi la famiglia?"),
        ("Di cosa si occupa la signora Bertolini?", "Di cosa si occupa la?"),
        ("Ci sono settori che la cliente vuole evitare?", "Ci sono settori che vuole evitare?"),
        ("Does Paolo like golf?", "Does Paolo like golf?"),  # another person's name stays
        ("Lorenza?", "Lorenza?"),  # nothing else to search for
    ],
)
def test_a_query_without_the_client(query, left):
    assert without_client(_client("lorenza-bertolini"), query) == left


def test_the_answer_is_the_memory_about_what_is_asked_not_the_one_naming_the_client(
    post_event, api_client, agent_key, personas
):
    personas.client.display_name = "Marta Llorente"
    personas.client.save(update_fields=["display_name"])
    ref = personas.client.external_ref
    post_event("Marta came in with Jorge and the signed forms.", client=ref, speaker="advisor")
    post_event("Marta Llorente opened the account in Valencia.", client=ref, speaker="advisor")
    post_event("I'd rather you email me than phone.", client=ref, speaker="client")
    answer = api_client.post(
        "/api/v1/search/",
        {"client": ref, "query": "How does Marta Llorente want to be contacted?", "k": 3},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {agent_key}",
    ).json()
    assert answer["results"][0]["content"] == "I'd rather you email me than phone."
