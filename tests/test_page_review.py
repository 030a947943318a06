"""The review queue page, one decision (htmx and plain POST) and bulk decisions, per persona."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from curation.models import ReviewItem
from memories.models import AuditEntry, Memory
from tests.support import factories
from tests.support.snapshot import take as db_state

pytestmark = pytest.mark.django_db

PERSONAS = ["advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir"]
QUEUE = {p: 403 for p in PERSONAS} | {"supervisor": 200, "admin": 200}
# Reviews are decided by supervisors and admins; anyone else is told so whatever the item
# (an advisor about their own client's or another's alike), so no id can be probed.
DECIDE = QUEUE


@pytest.fixture
def conflict(personas):
    event_old = factories.EventFactory.create(
        client=personas.client, content="Email is best for me."
    )
    event_new = factories.EventFactory.create(client=personas.client, content="Actually, call me.")
    old = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email.", evidence=[event_old], confidence=0.9
    )
    new = factories.MemoryFactory.create(
        client=personas.client, content="Prefers phone.", evidence=[event_new], confidence=0.6
    )
    return factories.ReviewItemFactory.create(memory=new, other_memory=old)


@pytest.fixture
def promotion(personas):
    memory = factories.MemoryFactory.create(
        client=personas.client, content="Never invests in crypto."
    )
    return factories.ReviewItemFactory.create(
        memory=memory,
        other_memory=None,
        type="promotion",
        score=0.83,
        recommended=True,
        score_components={"evidence": 0.9, "recency": {"value": 0.5, "weight": 0.2}},
    )


@pytest.mark.parametrize("persona", PERSONAS)
def test_queue_permissions(client, personas, conflict, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.get(reverse("curation:queue"))
    assert response.status_code == QUEUE[persona]
    assert db_state() == before
    if response.status_code == 200:
        assert "curation/review_queue.html" in [t.name for t in response.templates]
        assert [c.item.pk for c in response.context["cards"]] == [conflict.pk]


def test_queue_shows_conflicts_side_by_side_with_evidence(client, personas, conflict):
    client.force_login(personas.supervisor)
    page = client.get(reverse("curation:queue")).content.decode()
    # said earlier left, said more recently right
    assert page.index("Prefers email.") < page.index("Prefers phone.")
    assert "Email is best for me." in page and "Actually, call me." in page
    assert "0.90" in page and "0.60" in page  # confidence
    for label in ("Keep the earlier", "Keep the more recent", "Keep both", "Merge"):
        assert f">{label}</button>" in page
    assert response_counts(client) == {"conflict": 1, "promotion": 0}


def response_counts(client):
    return client.get(reverse("curation:queue")).context["counts"]


def test_queue_shows_promotion_score_components(client, personas, promotion):
    client.force_login(personas.supervisor)
    page = client.get(reverse("curation:queue"), {"type": "promotion"}).content.decode()
    assert "Never invests in crypto." in page
    assert "Promotion score 0.83" in page and "recommended" in page
    assert (
        '<th scope="row">Evidence</th>' in page
        and '<progress class="bar" max="100" value="90"' in page
    )
    assert '<th scope="row">Recency</th>' in page and "0.20" in page


def test_another_tenants_items_are_not_listed(client, personas):
    foreign = factories.MemoryFactory.create(client=personas.foreign_client, content="Globex fact.")
    factories.ReviewItemFactory.create(memory=foreign)
    client.force_login(personas.supervisor)
    response = client.get(reverse("curation:queue"))
    assert response.context["cards"] == []
    assert "No conflicts are waiting." in response.content.decode()


@pytest.mark.parametrize("persona", PERSONAS)
def test_decide_permissions(client, personas, conflict, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.post(
        reverse("curation:decide", args=[conflict.pk]),
        {"decision": "accept_new", "reason": "Confirmed by phone."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == DECIDE[persona]
    if response.status_code != 200:
        assert db_state() == before
        return
    conflict.refresh_from_db()
    assert (conflict.state, conflict.decision, conflict.decided_by) == (
        "decided",
        "accept_new",
        getattr(personas, persona),
    )
    assert Memory.objects.get(pk=conflict.other_memory_id).status == "superseded"
    body = response.content.decode()
    assert "Kept “Prefers phone.”; “Prefers email.” is superseded" in body
    assert "<html" not in body  # the card alone, swapped in place
    assert '<span class="count" id="count-conflict" hx-swap-oob="true">0</span>' in body


def test_decide_without_htmx_redirects_to_the_queue_with_the_outcome(client, personas, conflict):
    client.force_login(personas.supervisor)
    response = client.post(
        reverse("curation:decide", args=[conflict.pk]), {"decision": "keep_old"}, follow=True
    )
    assert response.redirect_chain == [(reverse("curation:queue") + "?type=conflict", 302)]
    assert "Kept “Prefers email.”; “Prefers phone.” is superseded" in response.content.decode()
    assert Memory.objects.get(pk=conflict.memory_id).status == "superseded"


def test_deciding_twice_says_to_reload(client, personas, conflict):
    client.force_login(personas.supervisor)
    url = reverse("curation:decide", args=[conflict.pk])
    client.post(url, {"decision": "keep_both"}, HTTP_HX_REQUEST="true")
    before = db_state()
    response = client.post(url, {"decision": "accept_new"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "already closed (Keep both). Reload the queue" in response.content.decode()
    assert db_state() == before


def test_an_obsolete_item_changes_nothing_and_says_so(client, personas, conflict):
    Memory.objects.filter(pk=conflict.other_memory_id).update(status="deleted")
    client.force_login(personas.supervisor)
    response = client.post(
        reverse("curation:decide", args=[conflict.pk]),
        {"decision": "accept_new"},
        HTTP_HX_REQUEST="true",
    )
    assert "Nothing was changed: this item no longer applies" in response.content.decode()
    assert Memory.objects.get(pk=conflict.memory_id).status == "active"


def test_a_wrong_decision_for_the_type_is_refused(client, personas, conflict):
    client.force_login(personas.supervisor)
    before = db_state()
    response = client.post(
        reverse("curation:decide", args=[conflict.pk]),
        {"decision": "approve"},
        HTTP_HX_REQUEST="true",
    )
    assert "Select a valid choice. approve is not one of the available choices." in (
        response.content.decode()
    )
    assert db_state() == before


def test_rejecting_a_promotion_needs_a_reason(client, personas, promotion):
    client.force_login(personas.supervisor)
    before = db_state()
    response = client.post(
        reverse("curation:decide", args=[promotion.pk]),
        {"decision": "reject"},
        HTTP_HX_REQUEST="true",
    )
    assert "Say why you reject it" in response.content.decode()
    assert db_state() == before


@pytest.mark.parametrize("persona", PERSONAS)
def test_bulk_permissions(client, personas, conflict, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.post(
        reverse("curation:bulk"),
        {"type": "conflict", "items": [conflict.pk], "decision": "keep_both"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == QUEUE[persona]
    if response.status_code != 200:
        assert db_state() == before


def test_bulk_decides_each_selected_item(client, personas, conflict):
    other = factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(client=personas.parent, content="Likes bonds."),
        other_memory=factories.MemoryFactory.create(client=personas.parent, content="Hates bonds."),
    )
    untouched = factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(client=personas.parent, content="A."),
        other_memory=factories.MemoryFactory.create(client=personas.parent, content="B."),
    )
    client.force_login(personas.supervisor)
    response = client.post(
        reverse("curation:bulk"),
        {
            "type": "conflict",
            "items": [conflict.pk, other.pk],
            "decision": "keep_both",
            "reason": "Not contradictions.",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "2 items handled" in body
    assert set(
        ReviewItem.objects.filter(state="decided").values_list("pk", "decision", "reason")
    ) == {
        (conflict.pk, "keep_both", "Not contradictions."),
        (other.pk, "keep_both", "Not contradictions."),
    }
    untouched.refresh_from_db()
    assert untouched.state == "open"
    assert AuditEntry.objects.filter(action="review.decide").count() == 2


def test_bulk_keeps_the_more_recent_side_of_each_as_the_cards_say(client, personas):
    """The bulk bar speaks as the cards do: by when each side was said, whichever was
    recorded first."""
    now = timezone.now()

    def conflict(new_said_days_ago, old_said_days_ago):
        said = {
            side: factories.MemoryFactory.create(
                client=personas.client,
                content=f"{side} {new_said_days_ago}.",
                observed_at=now - timedelta(days=days),
            )
            for side, days in (("new", new_said_days_ago), ("old", old_said_days_ago))
        }
        return factories.ReviewItemFactory.create(memory=said["new"], other_memory=said["old"])

    recorded_last_said_last = conflict(1, 10)
    imported_said_first = conflict(30, 10)  # recorded last, said long before
    client.force_login(personas.supervisor)
    page = client.get(reverse("curation:queue"), {"type": "conflict"}).content.decode()
    assert ">Keep the earlier</option>" in page and ">Keep the more recent</option>" in page
    assert "Keep old" not in page and "Accept new" not in page
    response = client.post(
        reverse("curation:bulk"),
        {
            "type": "conflict",
            "items": [recorded_last_said_last.pk, imported_said_first.pk],
            "decision": "keep_later",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    decided = dict(ReviewItem.objects.filter(state="decided").values_list("pk", "decision"))
    assert decided == {
        recorded_last_said_last.pk: "accept_new",
        imported_said_first.pk: "keep_old",
    }


def test_bulk_refuses_items_of_another_tenant(client, personas, conflict):
    foreign = factories.ReviewItemFactory.create(
        memory=factories.MemoryFactory.create(client=personas.foreign_client, content="X."),
        other_memory=factories.MemoryFactory.create(client=personas.foreign_client, content="Y."),
    )
    client.force_login(personas.supervisor)
    before = db_state()
    response = client.post(
        reverse("curation:bulk"),
        {"type": "conflict", "items": [conflict.pk, foreign.pk], "decision": "keep_both"},
        HTTP_HX_REQUEST="true",
    )
    assert "An item you selected was decided meanwhile" in response.content.decode()
    assert db_state() == before


def test_the_bulk_decision_starts_on_what_the_cards_recommend(client, personas, conflict):
    """Each conflict card's one primary button keeps the more recent: so does the bulk
    bar until the supervisor chooses otherwise."""
    client.force_login(personas.supervisor)
    page = " ".join(client.get(reverse("curation:queue")).content.decode().split())
    assert '<option value="keep_later" selected>Keep the more recent</option>' in page
    assert '<option value="keep_earlier">Keep the earlier</option>' in page
    assert '<button type="submit" name="decision" value="accept_new">Keep the more recent' in page


def test_bulk_with_nothing_selected_says_what_to_do(client, personas, conflict):
    client.force_login(personas.supervisor)
    response = client.post(
        reverse("curation:bulk"),
        {"type": "conflict", "decision": "keep_both"},
        HTTP_HX_REQUEST="true",
    )
    assert "Select at least one item first" in response.content.decode()


def test_a_scored_promotion_shows_each_component_with_its_weight(client, personas):
    from curation.services.promotion_scoring import promotion_components, promotion_score

    components = promotion_components(
        restated=4, reads=5, confidence=0.9, sources=3, age_days=15, importance=0.6
    )
    memory = factories.MemoryFactory.create(
        client=personas.client, content="Never invests in crypto."
    )
    factories.ReviewItemFactory.create(
        memory=memory,
        other_memory=None,
        type="promotion",
        score=promotion_score(components),
        score_components={**components, "restated": 4, "reads": 5},
    )
    client.force_login(personas.supervisor)
    response = client.get(reverse("curation:queue"), {"type": "promotion"})
    (card,) = response.context["cards"]
    rows = [(c["name"], c.get("value"), c.get("weight"), c.get("text")) for c in card.components]
    assert rows == [
        ("Repetition", 1.0, 0.30, None),
        ("Usage", 0.5, 0.20, None),
        ("Confidence", 0.9, 0.20, None),
        ("Evidence", 1.0, 0.15, None),
        ("Stability", 0.5, 0.10, None),
        ("Impact", 0.6, 0.05, None),
        ("Reads", None, None, "5"),  # the counts after, as jsonb orders them
        ("Restated", None, None, "4"),
    ]


def test_a_refused_bulk_form_comes_back_as_it_was_sent_without_htmx(client, personas, promotion):
    client.force_login(personas.supervisor)
    before = db_state()
    response = client.post(
        reverse("curation:bulk"),
        {"type": "promotion", "items": [promotion.pk], "decision": "reject", "reason": ""},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Say why you reject it" in page
    assert '<option value="reject" selected>Reject</option>' in page
    assert f'id="select-{promotion.pk}" checked' in page
    assert db_state() == before
