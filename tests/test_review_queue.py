"""A queue that helps decide: the page's filters (client, kind), order (recommended first,
score, age) and what each decision does; and the same queue as an API (list, get one)."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from curation.models import ReviewItem
from memories.models import Client
from tests.support import factories
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db


def _promotion(client, content, *, score, recommended=False, days_ago=0, **memory):
    said = factories.EventFactory.create(client=client, content=f"I said: {content}")
    item = factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(
            client=client, content=content, evidence=[said], **memory
        ),
        other_memory=None,
        type=ReviewItem.Type.PROMOTION,
        score=score,
        recommended=recommended,
        score_components={"evidence": 0.9},
    )
    ReviewItem.objects.filter(pk=item.pk).update(
        created_at=timezone.now() - timedelta(days=days_ago)
    )
    return item


@pytest.fixture
def queue(personas):
    Client.objects.filter(pk=personas.client.pk).update(display_name="Emma")
    Client.objects.filter(pk=personas.parent.pk).update(display_name="Giulia")
    return {
        "tea": _promotion(personas.client, "Likes tea.", score=0.70, days_ago=1),
        "crypto": _promotion(
            personas.client,
            "Never crypto.",
            score=0.84,
            recommended=True,
            days_ago=5,
            kind="decision",
            category="",
        ),
        "reports": _promotion(personas.parent, "Quarterly reports.", score=0.91, days_ago=3),
        "old": _promotion(personas.client, "Old one.", score=0.95, days_ago=9),
    }


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


def _cards(response) -> list[str]:
    return re.findall(
        r'<article class="review-card" id="item-([0-9a-f-]+)"', response.content.decode()
    )


def _ids(*items) -> list[str]:
    return [str(i.pk) for i in items]


def test_promotions_come_recommended_first_then_by_score(client, personas, queue):
    client.force_login(personas.supervisor)
    response = client.get("/review/", {"type": "promotion"})
    q = queue
    assert _cards(response) == _ids(q["crypto"], q["old"], q["reports"], q["tea"])
    assert _cards(client.get("/review/", {"type": "promotion", "sort": "score"})) == _ids(
        q["old"], q["reports"], q["crypto"], q["tea"]
    )
    assert _cards(client.get("/review/", {"type": "promotion", "sort": "oldest"})) == _ids(
        q["old"], q["crypto"], q["reports"], q["tea"]
    )
    assert _cards(client.get("/review/", {"type": "promotion", "sort": "newest"})) == _ids(
        q["tea"], q["reports"], q["crypto"], q["old"]
    )


def test_the_queue_filters_by_client_and_kind(client, personas, queue):
    client.force_login(personas.supervisor)
    emma = {"type": "promotion", "client": str(personas.client.pk), "sort": "oldest"}
    assert _cards(client.get("/review/", emma)) == _ids(queue["old"], queue["crypto"], queue["tea"])
    decisions = client.get("/review/", {**emma, "kind": "decision"})
    assert _cards(decisions) == _ids(queue["crypto"])
    page = decisions.content.decode()
    assert f'<option value="{personas.client.pk}" selected>Emma</option>' in page
    assert '<option value="decision" selected>Decision</option>' in page
    assert _cards(client.get("/review/", {"type": "conflict", "kind": "decision"})) == []
    assert (
        "No open conflicts match these filters"
        in client.get("/review/", {"type": "conflict", "kind": "decision"}).content.decode()
    )
    # a client the user does not see, or nonsense: no filter, as if none was chosen
    assert len(_cards(client.get("/review/", {"type": "promotion", "client": "nobody"}))) == 4


def test_a_card_says_what_approving_and_rejecting_do(client, personas, queue):
    client.force_login(personas.supervisor)
    page = _text(client.get("/review/", {"type": "promotion", "kind": "decision"}))
    assert (
        "Approve Status active → promoted: it ranks first among equals in search and context. "
        "The tier stays recall (tiers follow use; a supervisor moves them on the memory's "
        "page); the profile does not change (it lists preferences, facts, relationships and "
        "constraints of confidence 0.70 or more)."
    ) in page
    assert (
        "Reject Not promoted: it stays in search and context as it ranks now, in the recall "
        "tier, with your reason in the audit trail; it is not proposed again for 30 days "
        "unless new evidence comes."
    ) in page
    facts = client.get("/review/", {"type": "promotion", "client": str(personas.parent.pk)})
    assert "the profile keeps it among the stable facts." in facts.content.decode()


def test_a_conflict_card_says_what_each_decision_does(client, personas):
    old = factories.MemoryFactory.create(client=personas.client, content="Email.", tier="core")
    new = factories.MemoryFactory.create(client=personas.client, content="Phone.")
    factories.ReviewItemFactory.create(memory=new, other_memory=old)
    client.force_login(personas.supervisor)
    page = _text(client.get("/review/"))
    assert (
        "Keep the more recent The earlier statement becomes superseded and leaves search and "
        "context; the more recent one stays and takes the other's place in the core tier (if "
        "there is room)."
    ) in page
    assert (
        "Keep the earlier The more recent statement becomes superseded and leaves search and "
        "context; the earlier one stays as it is."
    ) in page


# --- the API -------------------------------------------------------------------------


def _get(api_client, user, tenant, path, **params):
    _, key = factories.api_key_for(user, tenant)
    return api_client.get(path, params, HTTP_AUTHORIZATION=f"Bearer {key}")


def test_the_api_lists_open_items_filtered_sorted_and_paged(api_client, personas, queue):
    conflict = factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(client=personas.client, content="Phone."),
        other_memory=factories.MemoryFactory.create(client=personas.client, content="Email."),
    )
    factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(client=personas.client, content="Done."),
        type=ReviewItem.Type.PROMOTION,
        other_memory=None,
        state="decided",
        decision="approve",
    )
    sup, tenant = personas.supervisor, personas.tenant
    body = _get(api_client, sup, tenant, "/api/v1/review/").json()
    q = queue
    assert (body["count"], body["page"], body["pages"], body["next"], body["previous"]) == (
        5,
        1,
        1,
        None,
        None,
    )
    assert [r["id"] for r in body["results"]] == _ids(
        q["crypto"], q["old"], q["reports"], q["tea"], conflict
    )  # recommended first, then by score (the conflict has none)
    first = body["results"][0]
    assert first == {
        "id": str(q["crypto"].pk),
        "type": "promotion",
        "state": "open",
        "decision": "",
        "reason": "",
        "memory": str(q["crypto"].memory_id),
        "other_memory": None,
        "decided_by": None,
        "decided_at": None,
        "client": "emma",
        "score": 0.84,
        "recommended": True,
        "summary": "",
        "created_at": first["created_at"],
    }
    scored = _get(
        api_client,
        sup,
        tenant,
        "/api/v1/review/",
        type="promotion",
        min_score="0.8",
        sort="score",
        client="emma",
        page_size="1",
        page="2",
    ).json()
    assert (scored["count"], scored["pages"], scored["previous"], scored["next"]) == (2, 2, 1, None)
    assert [r["id"] for r in scored["results"]] == _ids(q["crypto"])
    kinds = _get(api_client, sup, tenant, "/api/v1/review/", kind="decision").json()
    assert [r["id"] for r in kinds["results"]] == _ids(q["crypto"])


def _key(api_client, user, tenant) -> str:
    """A key of ``user``, used once already (its first use is recorded before a snapshot)."""
    _, key = factories.api_key_for(user, tenant)
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {key}")
    return key


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"sort": "best"}, 400, 'sort: "best" is not a valid choice.'),
        ({"min_score": "2"}, 400, "min_score: Ensure this value is less than or equal to 1.0."),
        ({"min_score": "nan"}, 400, "min_score: A valid number is required."),
        ({"min_score": "inf"}, 400, "min_score: A valid number is required."),
        ({"page_size": "0"}, 400, "page_size: Ensure this value is greater than or equal to 1."),
        ({"colour": "red"}, 400, "colour: Unknown field."),
        ({"client": "nobody"}, 404, "Client 'nobody' not found."),
        ({"page": "3"}, 404, "Page 3 does not exist: there are 1."),
    ],
)
def test_the_api_says_what_is_wrong_with_a_query(
    api_client, personas, queue, params, status, message
):
    key = _key(api_client, personas.supervisor, personas.tenant)
    with unchanged():
        response = api_client.get("/api/v1/review/", params, HTTP_AUTHORIZATION=f"Bearer {key}")
    assert response.status_code == status, response.content
    assert response.json()["error"]["message"] == message


def test_the_api_gives_one_item_with_both_memories_and_their_evidence(api_client, personas):
    told = factories.EventFactory.create(client=personas.client, content="Email me, please.")
    retold = factories.EventFactory.create(client=personas.client, content="Call me instead.")
    old = factories.MemoryFactory.create(client=personas.client, content="Email.", evidence=[told])
    new = factories.MemoryFactory.create(
        client=personas.client, content="Phone.", evidence=[retold]
    )
    item = factories.ReviewItemFactory.create(memory=new, other_memory=old)
    body = _get(api_client, personas.supervisor, personas.tenant, f"/api/v1/review/{item.pk}/")
    assert body.status_code == 200
    data = body.json()
    assert (data["id"], data["type"], data["client"]) == (str(item.pk), "conflict", "emma")
    assert data["memory_detail"]["content"] == "Phone."
    assert data["other_memory_detail"]["content"] == "Email."
    (evidence,) = data["memory_detail"]["evidence"]
    assert {k: evidence[k] for k in ("event", "speaker", "content", "role")} == {
        "event": str(retold.pk),
        "speaker": "client",
        "content": "Call me instead.",
        "role": "extracted",
    }
    assert data["other_memory_detail"]["evidence"][0]["content"] == "Email me, please."


@pytest.mark.parametrize(
    ("persona", "listed", "one"),
    [
        ("advisor", 403, 403),
        ("advisor2", 403, 403),
        ("outsider", 403, 403),
        ("supervisor", 200, 200),
        ("admin", 200, 200),
        ("client_user", 403, 403),
        ("heir", 403, 403),
    ],
)
def test_the_queue_api_is_for_supervisors(api_client, personas, queue, persona, listed, one):
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    auth = {"HTTP_AUTHORIZATION": f"Bearer {_key(api_client, user, tenant)}"}
    with unchanged():
        assert api_client.get("/api/v1/review/", **auth).status_code == listed
        assert api_client.get(f"/api/v1/review/{queue['tea'].pk}/", **auth).status_code == one
