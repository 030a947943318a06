"""An import tells a tenant nothing about the ids of others.

A document keeps its ids only when it is the importing tenant's own export (its
``ids_seal``); any other document gets fresh ids, so whether its ids exist in another
tenant changes nothing in the answer or in what is stored (docs/decisions/0011)."""

import json
import uuid

import pytest
from rest_framework.test import APIClient

from curation.models import ReviewItem
from memories.models import AuditEntry, Client, Event, Evidence, Memory, Relation, Role
from memories.services.jobs.runner import jobs_run_all
from memories.services.tenancy.encryption import tenant_create
from profiles.services.profile import profile_refresh
from tests.support import factories
from tests.support.encryption import CORPUS, ingest_corpus
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


def _supervisor_api(tenant, name):
    user = factories.UserFactory.create(username=name)
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    _, raw = factories.api_key_for(user, tenant)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    api.get("/api/v1/health/")  # the key's first use, before any snapshot
    return user, api


@pytest.fixture
def world():
    """Tenant ``vault`` holds ana-7 (memories, a review item, a profile); ``rival`` and
    ``third`` are other tenants with a supervisor each."""
    vault = tenant_create(slug="vault")
    user, vault_api = _supervisor_api(vault, "sv-vault")
    ingest_corpus(user=user, tenant=vault)
    client = vault.clients.get()
    newer, older = Memory.objects.filter(client=client).order_by("-created_at")[:2]
    factories.ReviewItemFactory.create(memory=newer, other_memory=older, summary=newer.content)
    profile_refresh(client=client)
    jobs_run_all(tenant_id=vault.pk)
    rival, third = tenant_create(slug="rival"), tenant_create(slug="third")
    _, rival_api = _supervisor_api(rival, "sv-rival")
    _, third_api = _supervisor_api(third, "sv-third")
    exported = vault_api.get("/api/v1/clients/ana-7/export/").json()
    return {
        "vault": vault,
        "rival": rival,
        "third": third,
        "vault_api": vault_api,
        "rival_api": rival_api,
        "third_api": third_api,
        "exported": exported,
    }


def _ids(document: dict) -> set[str]:
    rows = [document["client"]] + [
        r for name in ("sessions", "events", "memories", "review_items") for r in document[name]
    ]
    return {r["id"] for r in rows}


def _with_unknown_ids(document: dict) -> dict:
    """The same document with every id replaced by one that exists nowhere."""
    text = json.dumps(document)
    for old in _ids(document):
        text = text.replace(old, str(uuid.uuid4()))
    return json.loads(text)


def _shape(response, tenant) -> dict:
    """What an importer can observe of an import: status, headers, the answer's form, and
    whether the client got the document's id."""
    body = response.json()
    stored = Client.objects.get(tenant=tenant, external_ref="ana-7")
    return {
        "status": response.status_code,
        "headers": sorted(k for k in response.headers if k.lower() not in ("date",)),
        "keys": {k: sorted(v) for k, v in body.items()},
        "client": body["imported"]["client"],
        "answered_the_stored_id": body["imported"]["id"] == str(stored.pk),
    }


def test_importing_another_tenants_export_gets_fresh_ids_and_leaks_nothing(world):
    exported, vault = world["exported"], world["vault"]
    vault_before = take(tenant=vault)

    taken = world["rival_api"].post("/api/v1/clients/", exported, format="json")
    clean = world["third_api"].post("/api/v1/clients/", _with_unknown_ids(exported), format="json")

    assert taken.status_code == 201, taken.content
    assert clean.status_code == 201, clean.content
    assert _shape(taken, world["rival"]) == _shape(clean, world["third"])
    assert _shape(taken, world["rival"])["answered_the_stored_id"] is True
    doc_ids = _ids(exported)
    for tenant in (world["rival"], world["third"]):
        stored = Client.objects.get(tenant=tenant, external_ref="ana-7")
        held = {str(stored.pk)}
        held |= {str(pk) for pk in stored.sessions.values_list("pk", flat=True)}
        held |= {str(pk) for pk in Event.objects.filter(client=stored).values_list("pk", flat=True)}
        held |= {
            str(pk) for pk in Memory.objects.filter(client=stored).values_list("pk", flat=True)
        }
        held |= {
            str(pk) for pk in ReviewItem.objects.filter(client=stored).values_list("pk", flat=True)
        }
        assert held.isdisjoint(doc_ids)
        assert len(held) == len(doc_ids)
    assert take(tenant=vault).changes(vault_before) == []


def test_a_fresh_import_keeps_every_link_between_its_rows(world):
    exported = world["exported"]

    response = world["rival_api"].post("/api/v1/clients/", exported, format="json")

    assert response.status_code == 201
    again = world["rival_api"].get("/api/v1/clients/ana-7/export/").json()
    assert sorted(e["content"] for e in again["events"]) == sorted(CORPUS)
    assert len(again["memories"]) == len(exported["memories"])
    memories = {m["id"] for m in again["memories"]}
    events = {e["id"] for e in again["events"]}
    sessions = {s["id"] for s in again["sessions"]}
    assert {ev["event"] for m in again["memories"] for ev in m["evidence"]} <= events
    assert {m["session"] for m in again["memories"]} <= sessions | {None}
    assert {e["session"] for e in again["events"]} <= sessions | {None}
    assert {r["source"] for r in again["relations"]} | {
        r["target"] for r in again["relations"]
    } <= memories
    assert len(again["relations"]) == len(exported["relations"])
    (review,) = again["review_items"]
    assert {review["memory"], review["other_memory"]} <= memories
    entries = again["profile"]["static"] + again["profile"]["dynamic"]
    assert entries and {e["memory"] for e in entries} <= memories
    refs = [m["source_ref"] for m in again["memories"] if m["source_ref"].startswith("event:")]
    assert refs and {ref.removeprefix("event:") for ref in refs} <= events
    stored = Client.objects.get(tenant=world["rival"], external_ref="ana-7")
    assert Evidence.objects.filter(memory__client=stored).count() == sum(
        len(m["evidence"]) for m in exported["memories"]
    )
    assert Relation.objects.filter(source__client=stored).count() == len(exported["relations"])
    imported = AuditEntry.objects.get(tenant=world["rival"], action="client.imported")
    assert imported.object_id == str(stored.pk)


def test_a_seal_is_the_exporting_tenants_only(world):
    """A document whose seal was made for another tenant, or altered, is not ours."""
    exported = world["exported"]
    forged = {**exported, "ids_seal": "0" * 64}
    assert world["vault_api"].delete("/api/v1/clients/ana-7/").status_code == 200

    response = world["vault_api"].post("/api/v1/clients/", forged, format="json")

    assert response.status_code == 201
    assert response.json()["imported"]["id"] != exported["client"]["id"]


def test_the_exporting_tenant_gets_its_ids_back_and_is_told_of_its_own(world):
    exported, api = world["exported"], world["vault_api"]
    before = take()
    elsewhere = {**exported, "client": {**exported["client"], "external_ref": "ana-8"}}

    taken = api.post("/api/v1/clients/", elsewhere, format="json")

    assert taken.status_code == 409
    assert taken.json()["error"] == {
        "code": "ids_taken",
        "message": "This tenant already holds ids of this document (client, sessions, events, "
        "memories, review_items): the client still exists here, perhaps under another "
        "reference; erase it before importing it again.",
        "fields": {},
    }
    assert take().changes(before) == []
    assert api.delete("/api/v1/clients/ana-7/").status_code == 200
    restored = api.post("/api/v1/clients/", exported, format="json")
    assert restored.json() == {"imported": {"client": "ana-7", "id": exported["client"]["id"]}}


def test_own_ids_held_by_another_tenant_come_back_fresh(world):
    """Only an import made before documents were sealed can have left this tenant's ids in
    another: the client then comes back under fresh ids, as a foreign document would."""
    exported, api = world["exported"], world["vault_api"]
    assert api.delete("/api/v1/clients/ana-7/").status_code == 200
    factories.ClientFactory.create(
        tenant=world["rival"], id=exported["client"]["id"], external_ref="copied"
    )

    response = api.post("/api/v1/clients/", exported, format="json")

    assert response.status_code == 201
    assert response.json()["imported"]["id"] != exported["client"]["id"]
    restored = Client.objects.get(tenant=world["vault"], external_ref="ana-7")
    assert Memory.objects.filter(client=restored).count() == len(exported["memories"])
