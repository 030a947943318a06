"""The client page's search: the API's floor decides whether there is an answer, and the
page lists as matches only the memories that match by themselves, saying how many."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

SAID = [
    "Preferisco essere contattata via email, non al telefono.",
    "Il rogito è fissato per marzo.",
    "Vorrei reinvestire metà del ricavato.",
    "Mio figlio Marco inizierà l'università a Zurigo a settembre.",
    "Ho deciso di non investire in criptovalute, troppo volatili per me.",
    "Preferisco i report trimestrali in italiano.",
    "Abbiamo un appuntamento dal notaio giovedì prossimo per la firma.",
    "Il notaio vuole anche la visura catastale.",
]


@pytest.fixture
def searched(client, personas, post_event):
    for text in SAID:
        post_event(text)
    client.force_login(personas.advisor)
    url = reverse("profiles:client-memories", args=[personas.client.pk])

    def _search(query: str) -> tuple[list[str], str]:
        response = client.get(url, {"q": query})
        assert response.status_code == 200
        text = " ".join(html.unescape(response.content.decode()).split())
        return re.findall(r'class="memory-content" href="[^"]+">([^<]+)</a>', text), text

    return _search


def test_only_the_memories_that_match_are_listed_and_counted(searched):
    listed, text = searched("appuntamento dal notaio")
    assert listed[0] == "Abbiamo un appuntamento dal notaio giovedì prossimo per la firma."
    assert sorted(listed) == sorted(
        [
            "Abbiamo un appuntamento dal notaio giovedì prossimo per la firma.",
            "Il notaio vuole anche la visura catastale.",
        ]
    )
    assert "2 memories match “appuntamento dal notaio”, best first" in text
    assert "Top " not in text

    listed, text = searched("visura catastale")
    assert listed == ["Il notaio vuole anche la visura catastale."]
    assert "1 memory matches “visura catastale”" in text


def test_a_search_about_nothing_the_client_said_finds_nothing(searched):
    listed, text = searched("kubernetes ingress controller")
    assert listed == []
    assert "No memory matches “kubernetes ingress controller” with these filters." in text
