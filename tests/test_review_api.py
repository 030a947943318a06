"""POST /api/v1/review/{id}/decide/: the same decisions as the queue's buttons."""

import uuid

import pytest

from memories.models import Memory
from tests.support import factories
from tests.support.snapshot import take as db_state
from tests.support.snapshot import unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def conflict(personas):
    old = factories.MemoryFactory.create(client=personas.client, content="Prefers email.")
    new = factories.MemoryFactory.create(client=personas.client, content="Prefers phone.")
    return factories.ReviewItemFactory.create(memory=new, other_memory=old)


def _decide(api_client, user, tenant, item, *, key=None, **body):
    if key is None:
        _, key = factories.api_key_for(user, tenant)
    return api_client.post(
        f"/api/v1/review/{item.pk}/decide/", body, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )


@pytest.mark.parametrize(
    ("persona", "status"),
    [
        ("advisor", 403),
        ("advisor2", 403),
        ("outsider", 403),
        ("supervisor", 200),
        ("admin", 200),
        ("client_user", 403),
        ("heir", 403),
    ],
)
def test_decide_permissions(api_client, personas, conflict, persona, status):
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, key = factories.api_key_for(user, tenant)
    # the key's first use records itself (last_used_at) before the snapshot
    api_client.get("/api/v1/health/", HTTP_AUTHORIZATION=f"Bearer {key}")
    before = db_state()
    response = _decide(api_client, user, tenant, conflict, key=key, decision="accept_new")
    assert response.status_code == status
    if status == 200:
        body = response.json()
        assert (body["id"], body["state"], body["decision"], body["decided_by"]) == (
            str(conflict.pk),
            "decided",
            "accept_new",
            getattr(personas, persona).username,
        )
        assert Memory.objects.get(pk=conflict.other_memory_id).status == "superseded"
    else:
        assert "error" in response.json()
        assert db_state() == before


def test_reason_is_recorded_and_decided_twice_is_409(api_client, personas, conflict):
    first = _decide(
        api_client, personas.supervisor, personas.tenant, conflict, decision="merge", reason="Same."
    )
    assert first.status_code == 200
    assert first.json()["reason"] == "Same."
    again = _decide(api_client, personas.supervisor, personas.tenant, conflict, decision="keep_old")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "review_closed"


def test_obsolete_item_is_409_and_nothing_is_decided(api_client, personas, conflict):
    Memory.objects.filter(pk=conflict.memory_id).update(status="expired")
    response = _decide(
        api_client, personas.supervisor, personas.tenant, conflict, decision="accept_new"
    )
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "obsolete",
        "message": f"Nothing was decided: memory {conflict.memory_id} is now expired.",
        "fields": {},
    }
    assert Memory.objects.get(pk=conflict.other_memory_id).status == "active"


def test_bad_input_is_named(api_client, personas, conflict):
    unknown = _decide(
        api_client, personas.supervisor, personas.tenant, conflict, decision="keep_old", extra=1
    )
    assert (unknown.status_code, unknown.json()["error"]["fields"]) == (
        400,
        {"extra": ["Unknown field."]},
    )
    response = _decide(api_client, personas.supervisor, personas.tenant, conflict, decision="maybe")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"decision": ['"maybe" is not a valid choice.']}
    conflict.refresh_from_db()
    assert conflict.state == "open"


def test_a_promotion_decision_on_a_conflict_is_refused(api_client, personas, conflict):
    response = _decide(
        api_client, personas.supervisor, personas.tenant, conflict, decision="approve"
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "Unknown decision 'approve': choose one of keep_old, accept_new, keep_both, merge."
    )


@pytest.mark.parametrize("persona", ["advisor", "advisor2", "outsider", "client_user", "heir"])
def test_a_role_that_decides_no_reviews_cannot_tell_which_ids_exist(
    api_client, personas, conflict, persona
):
    """An item about the advisor's own client, one about another advisor's, and an id
    nobody has: one answer for each call, and nothing changes."""
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, key = factories.api_key_for(user, tenant)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    api_client.get("/api/v1/health/", **auth)  # the key's first use records itself
    carlos = factories.MemoryFactory.create(client=personas.advisor2_client)
    theirs = factories.ReviewItemFactory.create(memory=carlos)
    ids = [conflict.pk, theirs.pk, uuid.uuid4()]

    def answers(item_id):
        read = api_client.get(f"/api/v1/review/{item_id}/", **auth)
        decide = api_client.post(
            f"/api/v1/review/{item_id}/decide/", {"decision": "keep_old"}, format="json", **auth
        )
        return [(r.status_code, r.json()) for r in (read, decide)]

    refused = (
        403,
        {
            "error": {
                "code": "permission_denied",
                "message": "The review queue is for supervisors and admins.",
                "fields": {},
            }
        },
    )
    with unchanged():
        assert [answers(item_id) for item_id in ids] == [[refused, refused]] * 3
