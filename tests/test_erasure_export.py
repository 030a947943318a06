"""Erasure (the right to be forgotten) and export (portability), through the API and the
page, for encrypted and plaintext tenants."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client as PageClient
from rest_framework.test import APIClient

from curation.models import ReviewItem
from memories.models import AuditEntry, Client, DataKey, Event, Memory, Role
from memories.services.jobs.runner import job_run, jobs_run_all
from memories.services.retrieval import memories_search
from memories.services.tenancy.encryption import tenant_create
from profiles.models import Profile
from profiles.services.profile import profile_refresh
from tests.support import factories
from tests.support.encryption import CORPUS, QUERIES, dump_database, ingest_corpus
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[True, False], ids=["encrypted", "plaintext"])
def setup(request):
    tenant = tenant_create(slug="vault", encrypted=request.param)
    supervisor = factories.UserFactory.create(username="sv")
    factories.MembershipFactory.create(tenant=tenant, user=supervisor, role=Role.SUPERVISOR)
    ingest_corpus(user=supervisor, tenant=tenant)
    client = tenant.clients.get()
    newer, older = Memory.objects.filter(client=client).order_by("-created_at")[:2]
    factories.ReviewItemFactory.create(memory=newer, other_memory=older, summary=newer.content)
    profile_refresh(client=client)
    jobs_run_all(tenant_id=tenant.pk)
    api = APIClient()
    _, raw = factories.api_key_for(supervisor, tenant)
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return tenant, client, api


def test_erasure_leaves_only_a_tombstone_and_jobs_change_nothing_after(setup):
    tenant, client, api = setup
    client_id = str(client.pk)
    ids = [str(pk) for pk in Memory.objects.filter(client=client).values_list("pk", flat=True)]
    ids += [str(pk) for pk in Event.objects.filter(client=client).values_list("pk", flat=True)]

    response = api.delete("/api/v1/clients/ana-7/")

    assert response.status_code == 200, response.content
    counts = response.json()["erased"]["counts"]
    assert counts["event"] == len(CORPUS)
    assert counts["memory"] == len(ids) - len(CORPUS)
    assert counts["profile"] == 1 and counts["reviewitem"] == 1
    assert counts.get("datakey", 0) == (1 if tenant.encrypted else 0)
    for model in (Event, Memory, Profile, ReviewItem):
        assert not model.objects.filter(tenant=tenant).exists(), model
    assert not DataKey.objects.filter(client_id=client_id).exists()
    dump = dump_database()
    assert dump.count(client_id) == 1  # the tombstone's object id, nothing else
    assert not [i for i in ids if i in dump]
    assert "ana-7" not in dump  # the reference is not kept, even in the tombstone
    (tombstone,) = AuditEntry.objects.filter(object_id=client_id)
    assert tombstone.action == "client.erased"
    assert tombstone.data == {"counts": counts, "encrypted": tenant.encrypted}
    # Gone from every door that names it (what schemathesis' use-after-free check would
    # ask, and cannot for clients: tests/support/api_fuzzing.py).
    for url in ("/api/v1/clients/ana-7/export/", "/api/v1/clients/ana-7/profile/"):
        assert api.get(url).status_code == 404, url
    assert api.delete("/api/v1/clients/ana-7/").status_code == 404
    assert api.get("/api/v1/memories/", {"client": "ana-7"}).status_code == 404
    assert "ana-7" not in [c["ref"] for c in api.get("/api/v1/clients/").json()["results"]]

    before = take()
    jobs_run_all()
    assert [c for c in take().changes(before) if not c.startswith("memories.JobRun")] == []


def test_erasure_then_queued_work_resurrects_nothing(setup, django_capture_on_commit_callbacks):
    tenant, _, api = setup
    with django_capture_on_commit_callbacks() as queued:  # work queued by a late write
        ingest_corpus(
            user=tenant.memberships.get().user,
            tenant=tenant,
            corpus=["I now prefer tea."],
            ids="late",  # a new event (e-0 names the corpus's first)
        )
    assert queued  # the late write stored something and queued work for it
    api.delete("/api/v1/clients/ana-7/")
    for callback in queued:
        callback()
    assert not Event.objects.filter(tenant=tenant).exists()
    assert not Profile.objects.filter(tenant=tenant).exists()


def test_export_round_trips_everything_held_about_the_client(setup):
    tenant, client, api = setup
    response = api.get("/api/v1/clients/ana-7/export/")
    assert response.status_code == 200
    exported = json.loads(json.dumps(response.json()))  # plain JSON, nothing else
    assert exported["format"] == "memoryhub.client-export/1"
    assert exported["client"]["external_ref"] == "ana-7"
    assert [e["content"] for e in exported["events"]] == CORPUS
    assert [e["metadata"] for e in exported["events"]] == [{"note": t} for t in CORPUS]
    stored = {str(m.pk): m for m in Memory.objects.filter(client=client)}
    assert {m["id"]: m["content"] for m in exported["memories"]} == {
        pk: m.content for pk, m in stored.items()
    }
    assert {m["id"]: m["attribute_value"] for m in exported["memories"]} == {
        pk: m.attribute_value for pk, m in stored.items()
    }
    profile = Profile.objects.get(client=client)
    assert exported["profile"]["static"] == profile.static
    assert [r["summary"] for r in exported["review_items"]] == [
        r.summary for r in ReviewItem.objects.filter(client=client)
    ]
    assert sum(len(m["evidence"]) for m in exported["memories"]) == sum(
        m.evidence.count() for m in stored.values()
    )
    assert {a["object_id"] for a in exported["audit"]} <= {
        str(client.pk),
        *stored,
        *(e["id"] for e in exported["events"]),
        *(r["id"] for r in exported["review_items"]),
    }
    if tenant.encrypted:  # decrypted for the caller, while the rows stay sealed
        assert all(not m["content"].startswith("mh1:") for m in exported["memories"])


def test_bad_input_is_a_clear_4xx(setup):
    _, _, api = setup
    missing = api.delete("/api/v1/clients/nobody/")
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "code": "not_found",
        "message": "Client 'nobody' not found.",
        "fields": {},
    }
    assert api.get("/api/v1/clients/nobody/export/").status_code == 404
    assert api.patch("/api/v1/clients/ana-7/", {}, format="json").status_code == 405


def test_the_page_erases_only_with_the_reference_typed_again(setup):
    tenant, client, _ = setup
    browser = PageClient()
    browser.force_login(tenant.memberships.get().user)
    page = browser.get(f"/clients/{client.pk}/")
    assert b"Erase this client" in page.content

    before = take()
    wrong = browser.post(f"/clients/{client.pk}/erase/", {"confirm": "ana"})
    assert wrong.status_code == 302 and wrong["Location"] == f"/clients/{client.pk}/"
    assert take().changes(before) == []

    events, memories = client.events.count(), client.memories.count()
    done = browser.post(f"/clients/{client.pk}/erase/", {"confirm": "ana-7"}, follow=True)
    assert done.redirect_chain == [("/clients/", 302)]
    said = (
        f"{events} event{'s' * (events != 1)} and {memories} memor{'ies' if memories != 1 else 'y'}"
    )
    assert f"Erased ana-7: {said} are gone".encode() in done.content
    assert not Event.objects.filter(tenant=tenant).exists()


def test_the_erase_button_is_for_supervisors_only(personas):
    browser = PageClient()
    browser.force_login(personas.advisor)
    page = browser.get(f"/clients/{personas.client.pk}/")
    assert page.status_code == 200
    assert b"Erase this client" not in page.content


# --- import: the export's way back -------------------------------------------------------

SELF = {"client.erased", "client.imported"}  # the erase and the import themselves


def _comparable(document: dict) -> dict:
    out = {k: v for k, v in document.items() if k != "exported_at"}
    # Whether an entry came with an import is its own test's matter (below).
    out["audit"] = [
        {k: v for k, v in a.items() if k != "imported"}
        for a in document["audit"]
        if a["action"] not in SELF
    ]
    return out


def _searches(client) -> list[list[str]]:
    return [
        [str(h.memory.pk) for h in memories_search(client=client, query=q, record_access=False)]
        for q in QUERIES
    ]


def test_export_erase_import_gives_back_the_same_document_and_searches(setup):
    tenant, client, api = setup
    job_run("reembed", tenant_id=tenant.pk)
    searched = _searches(client)
    assert all(searched)  # every query finds something to compare
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    assert api.delete("/api/v1/clients/ana-7/").status_code == 200

    response = api.post("/api/v1/clients/", exported, format="json")

    assert response.status_code == 201, response.content
    assert response.json() == {"imported": {"client": "ana-7", "id": exported["client"]["id"]}}
    again = api.get("/api/v1/clients/ana-7/export/").json()
    assert _comparable(again) == _comparable(exported)
    assert [a["action"] for a in again["audit"] if a["action"] in SELF] == [
        "client.erased",
        "client.imported",
    ]
    restored = Client.objects.get(tenant=tenant, external_ref="ana-7")
    assert Memory.objects.filter(client=restored, needs_embedding=False).count() == 0
    job_run("reembed", tenant_id=tenant.pk)
    assert _searches(restored) == searched
    if tenant.encrypted:
        dump = dump_database()
        assert [s for s in CORPUS if s in dump] == []
        assert not Memory.objects.filter(client=restored).exclude(content__startswith="mh1:")


def test_import_refuses_a_client_that_exists_and_changes_nothing(setup):
    _, _, api = setup
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    before = take()

    response = api.post("/api/v1/clients/", exported, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "client_exists"
    exported["client"]["external_ref"] = "ana-8"  # a new reference, but the same ids
    taken = api.post("/api/v1/clients/", exported, format="json")
    assert taken.status_code == 409
    assert taken.json()["error"]["code"] == "ids_taken"
    assert take().changes(before) == []


def test_import_answers_a_bad_document_with_a_400_naming_what_is_wrong(setup):
    _, _, api = setup
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    api.delete("/api/v1/clients/ana-7/")
    before = take()

    wrong_format = api.post("/api/v1/clients/", {**exported, "format": "x/2"}, format="json")
    assert wrong_format.status_code == 400
    assert wrong_format.json()["error"]["fields"] == {
        "format": ["must be 'memoryhub.client-export/1'"]
    }
    broken = json.loads(json.dumps(exported))
    del broken["events"][0]["content"]
    broken["memories"][0]["tier"] = "attic"
    broken["memories"][1]["confidence"] = "high"
    broken["relations"] = "none"
    broken["memories"][0]["evidence"][0]["event"] = "0b8f6a52-3c1e-4f55-9a7d-2f4c1e0d9b11"
    response = api.post("/api/v1/clients/", broken, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "events[0].content": ["is required"],
        "memories[0].tier": ["must be one of 'core', 'recall', 'archival'"],
        "memories[1].confidence": ["must be a number from 0 to 1"],
        "relations": ["must be a list"],
    }
    dangling = json.loads(json.dumps(exported))
    dangling["memories"][0]["evidence"][0]["event"] = "0b8f6a52-3c1e-4f55-9a7d-2f4c1e0d9b11"
    response = api.post("/api/v1/clients/", dangling, format="json")
    assert response.json()["error"]["fields"] == {
        "memories[0].evidence[0].event": ["points to nothing in the document"]
    }
    unfit = json.loads(json.dumps(exported))  # valid in shape, refused by the database
    unfit["relations"] = [{**unfit["relations"][0], "target": unfit["relations"][0]["source"]}]
    assert api.post("/api/v1/clients/", unfit, format="json").status_code == 400
    assert api.post("/api/v1/clients/", [1], format="json").status_code == 400
    assert take().changes(before) == []  # nothing half-imported


def test_an_imported_trail_is_marked_as_imported_and_cannot_be_undone(setup):
    """A document may say anything of its past ("x forgot this on 2026-01-01"): its
    entries are kept as what it says, marked, never taken for a change made here."""
    tenant, _, api = setup
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    api.delete("/api/v1/clients/ana-7/")
    memory = exported["memories"][0]
    doctored = json.loads(json.dumps(exported))
    doctored["audit"].append(
        {
            "actor": "x",
            "action": "memory.forget",
            "object_type": "memory",
            "object_id": memory["id"],
            "at": "2026-01-01T00:00:00+00:00",
        }
    )
    assert api.post("/api/v1/clients/", doctored, format="json").status_code == 201
    said = AuditEntry.objects.get(tenant=tenant, actor_label="x", action="memory.forget")
    assert said.data == {"imported": True}
    assert not AuditEntry.objects.filter(tenant=tenant, action="client.imported").filter(
        data__imported=True
    )  # the import itself is this tenant's own entry
    page = PageClient()
    page.force_login(factories.UserFactory._meta.model.objects.get(username="sv"))
    undo = page.post(f"/memories/{memory['id']}/undo/", {"entry": said.pk})
    assert undo.status_code == 400
    assert "There is no correction or forget of this memory" in undo.content.decode()
    trail = page.get(f"/clients/{Client.objects.get(external_ref='ana-7').pk}/audit/")
    assert trail.status_code == 200
    assert "Came with an imported document" in trail.content.decode()


def test_a_re_export_says_which_audit_entries_came_with_an_import(setup):
    """Exported, erased, imported and exported again: the document's own trail comes back
    marked as imported, this tenant's erase and import do not, and the re-export imports
    again."""
    _, _, api = setup
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    assert {a["imported"] for a in exported["audit"]} == {False}
    api.delete("/api/v1/clients/ana-7/")
    assert api.post("/api/v1/clients/", exported, format="json").status_code == 201

    again = api.get("/api/v1/clients/ana-7/export/").json()

    marks = [(a["action"], a["at"], a["imported"]) for a in again["audit"]]
    came = [(a["action"], a["at"], True) for a in exported["audit"]]
    assert [m for m in marks if m[0] not in SELF] == came
    assert [(action, imported) for action, _, imported in marks if action in SELF] == [
        ("client.erased", False),
        ("client.imported", False),
    ]
    api.delete("/api/v1/clients/ana-7/")
    assert api.post("/api/v1/clients/", again, format="json").status_code == 201
    third = api.get("/api/v1/clients/ana-7/export/").json()
    assert [a["imported"] for a in third["audit"]] == [True] * len(again["audit"]) + [
        False,
        False,
    ]


def test_a_document_that_holds_one_id_twice_is_refused_in_its_own_words(setup):
    _, _, api = setup
    exported = api.get("/api/v1/clients/ana-7/export/").json()
    api.delete("/api/v1/clients/ana-7/")
    twice = json.loads(json.dumps(exported))
    twice["memories"][1]["id"] = twice["memories"][0]["id"]
    answer = api.post("/api/v1/clients/", twice, format="json")
    assert answer.status_code == 400
    # (What pointed to the id it replaced points to nothing now: said too.)
    assert answer.json()["error"]["fields"]["memories[1].id"] == ["is also the id of memories[0]"]


def test_the_command_imports_a_file(setup, tmp_path):
    tenant, _, api = setup
    path = tmp_path / "ana.json"
    path.write_text(json.dumps(api.get("/api/v1/clients/ana-7/export/").json()))
    api.delete("/api/v1/clients/ana-7/")
    out = io.StringIO()

    call_command("import_client", str(path), "--tenant", "vault", stdout=out)

    assert out.getvalue().startswith("imported client ana-7 (")
    assert Event.objects.filter(tenant=tenant).count() == len(CORPUS)
    with pytest.raises(CommandError, match="already exists"):
        call_command("import_client", str(path), "--tenant", "vault")


def test_an_export_costs_the_same_queries_however_much_the_client_holds(personas):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memories.services.client_data.export import client_export

    def queries() -> int:
        client = type(personas.client).objects.get(pk=personas.client.pk)
        with CaptureQueriesContext(connection) as captured:
            client_export(client=client)
        return len(captured.captured_queries)

    def grow() -> None:
        older = factories.MemoryFactory.create(client=personas.client, content="Older.")
        newer = factories.MemoryFactory.create(
            client=personas.client,
            content="Newer.",
            evidence=[factories.EventFactory.create(client=personas.client)],
        )
        factories.RelationFactory.create(source=newer, target=older)

    grow()
    few = queries()
    for _ in range(5):
        grow()
    assert queries() == few
