"""POST /api/v1/context/ and the profiles behind it."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from profiles.models import Profile
from profiles.services.context import render_text
from tests.support import factories

pytestmark = pytest.mark.django_db


def _context(api_client, user, tenant, **body):
    _, key = factories.api_key_for(user, tenant)
    return api_client.post(
        "/api/v1/context/", body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def test_profile_is_refreshed_after_each_write(personas, post_event):
    post_event("I prefer to be contacted by email.")
    profile = Profile.objects.get(client=personas.client)
    assert [e["text"] for e in profile.static] == ["I prefer to be contacted by email."]
    post_event("We are planning to buy a house in Bristol within two years.")
    profile.refresh_from_db()
    assert [e["text"] for e in profile.dynamic] == [
        "We are planning to buy a house in Bristol within two years."
    ]
    assert profile.version == 2


def test_context_in_one_call(api_client, personas, post_event):
    factories.MemoryFactory.create(
        client=personas.client, content="Speaks English and Welsh.", tier="core", importance=0.9
    )
    post_event("I prefer to be contacted by email.")
    post_event("We are planning to buy a house in Bristol within two years.")
    event = post_event("My husband James handles the joint account.", external_id="m-9")
    response = _context(
        api_client,
        personas.advisor,
        personas.tenant,
        client="emma",
        message="Can you remind me who looks after our joint account?",
        explain=True,
    )
    assert response.status_code == 200
    body = response.json()
    assert [c["content"] for c in body["core"]] == ["Speaks English and Welsh."]
    assert body["memories"][0]["content"] == "My husband James handles the joint account."
    assert body["memories"][0]["evidence"] == [
        {
            "event": event["event"]["id"],
            "external_id": "m-9",
            "observed_at": event["event"]["observed_at"],
        }
    ]
    assert "I prefer to be contacted by email." in [e["text"] for e in body["profile"]["static"]]
    said = event["event"]["observed_at"][:10]  # when the client said it, as the agent reads
    today = body["text"].splitlines()[0]
    assert today == f"Today is {timezone.localdate().isoformat()}."
    assert body["text"].startswith(
        f"{today}\n\nCore memories:\n- Speaks English and Welsh.\n\n"
        f"Relevant to this message:\n- {said} · My husband James"
    )
    assert body["text"].count("My husband James handles the joint account.") == 1
    assert len(body["text"]) <= 2000


@pytest.mark.parametrize("budget", [200, 260, 400, 1000])
def test_the_budget_holds(api_client, personas, post_event, budget):
    for n in range(12):
        post_event(f"I want to visit city number {n} with a long description of the trip plans.")
    body = _context(
        api_client,
        personas.advisor,
        personas.tenant,
        client="emma",
        message="travel plans",
        budget_chars=budget,
    ).json()
    assert 0 < len(body["text"]) <= budget


def test_render_text_packs_what_fits_and_skips_repeats():
    class M:
        speaker, occurred_on, occurred_precision, expires_at = "user", None, "", None
        observed_at = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)

        def __init__(self, pk, content):
            self.pk, self.content = pk, content

    class H:
        def __init__(self, memory):
            self.memory = memory

    core = [M(1, "A" * 50)]
    hits = [H(M(1, "A" * 50)), H(M(2, "B" * 300)), H(M(3, "C" * 20))]
    now = datetime(2026, 3, 9, 12, tzinfo=UTC)
    text = render_text(core=core, static=[], hits=hits, dynamic=[], budget=160, now=now)
    relevant = "\n\nRelevant to this message:\n- 2026-03-02 · " + "C" * 20
    assert text == "Today is 2026-03-09.\n\nCore memories:\n- " + "A" * 50 + relevant
    assert len(text) <= 160


def test_a_client_gets_only_their_core(api_client, personas, post_event):
    factories.MemoryFactory.create(client=personas.client, content="Prefers email.", tier="core")
    post_event("My husband James handles the joint account.")
    body = _context(
        api_client,
        personas.client_user,
        personas.tenant,
        client="emma",
        message="joint account",
        explain=True,
    ).json()
    assert body == {
        "profile": {"static": [], "dynamic": []},
        "core": [
            {
                "id": body["core"][0]["id"],
                "content": "Prefers email.",
                "kind": "semantic",
                "category": "fact",
                "disputed_by": [],
            }
        ],
        "memories": [],
        "coming_up": [],
        "text": f"Today is {timezone.localdate().isoformat()}.\n\nCore memories:\n- Prefers email.",
    }


def test_an_heir_never_gets_a_parents_context(api_client, personas):
    factories.MemoryFactory.create(client=personas.parent, content="Owns a villa.", tier="core")
    response = _context(
        api_client, personas.heir, personas.tenant, client="giulia", message="villa"
    )
    assert response.status_code == 404
    own = _context(api_client, personas.heir, personas.tenant, client="marco", message="villa")
    assert own.status_code == 200
    assert own.json()["core"] == []


def test_expired_core_memories_are_left_out(api_client, personas):
    factories.MemoryFactory.create(
        client=personas.client,
        content="In Rome this week.",
        tier="core",
        expires_at=timezone.now() - timedelta(days=1),
    )
    body = _context(
        api_client, personas.advisor, personas.tenant, client="emma", message="where"
    ).json()
    assert body["core"] == []


def test_a_deadline_comes_up_as_it_nears_and_leaves_once_past(api_client, personas, post_event):
    said = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    with time_machine.travel(said, tick=False):
        post_event("I need to send the signed mortgage papers by March 27, 2026.")
        post_event("I prefer to be contacted by email.")

    def coming_up(day):
        with time_machine.travel(day, tick=False):
            body = _context(
                api_client, personas.advisor, personas.tenant, client="emma", message="hello"
            ).json()
        return [m["content"] for m in body["coming_up"]], body["text"]

    assert coming_up(said) == ([], coming_up(said)[1])  # weeks away: not yet
    soon, text = coming_up(datetime(2026, 3, 20, 9, 0, tzinfo=UTC))
    assert soon == ["I need to send the signed mortgage papers by March 27, 2026."]
    # Said on 2 March, for the 27th: one week ahead, as the agent reads it on the 20th.
    assert "Today is 2026-03-20." in text
    assert (
        "Coming up:\n- 2026-03-02 · I need to send the signed mortgage papers by March 27, "
        "2026. (planned for 2026-03-27: in 7 days)"
    ) in text
    assert coming_up(datetime(2026, 3, 28, 9, 0, tzinfo=UTC))[0] == []  # past: gone from it


def test_bad_context_input(api_client, personas):
    response = _context(
        api_client, personas.advisor, personas.tenant, client="emma", message="", budget_chars=10
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"message", "budget_chars"}
