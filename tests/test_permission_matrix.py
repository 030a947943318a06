"""The permission matrix: every persona × every endpoint and page × read and write.

Each row is one request (an endpoint or page, a method, a target); each column a persona
(DESIGN "Who uses it", plus an anonymous caller). A cell is the exact status that persona
gets. Every denied cell also asserts that nothing changed in the database, and an API
denial answers in the error format. The other tenant's advisor (``outsider``) posting
about "emma" reaches *their* tenant's emma: allowed, and this tenant is untouched.

A new endpoint or page is a new row in ROWS (and a new operation in the schema test
fails until it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest
from django.test import Client as PageClient
from rest_framework.test import APIClient

from memories.models import AuditEntry, Tier
from memories.services.write.lifecycle import memory_forget
from tests.support import factories
from tests.support.snapshot import take

if TYPE_CHECKING:
    from tests.conftest import Personas

pytestmark = pytest.mark.django_db

PERSONAS = ("advisor", "outsider", "advisor2", "supervisor", "admin", "client", "heir")
COLUMNS = (*PERSONAS, "anonymous")
PASSWORD = "pw-for-tests"  # tests.support.factories.UserFactory


@dataclass(frozen=True)
class Denied:
    """A denial answered with a status below 400: a redirect to a login page, or a login
    form shown again."""

    status: int


def cells(default=None, *, anonymous=401, **by_persona) -> dict:
    """Expected status per column: ``default`` for every persona not named."""
    out = {p: by_persona.get(p, default) for p in PERSONAS}
    out["anonymous"] = anonymous
    assert None not in out.values(), out
    return out


@dataclass(frozen=True)
class Row:
    name: str
    method: str
    path: str  # "{emma_core}" and the like are filled from the world's memory ids
    expect: dict
    kind: str  # read | write
    body: dict | None = None
    page: bool = False  # a browser page: session login, CSRF enforced
    csrf: bool = True  # pages only: send the CSRF token
    check: object = field(default=None, compare=False)  # (response, world, persona) → None


def _only_core(response, world, persona):
    """The own client's login gets its core tier only, whatever it asks."""
    if persona != "client":
        return
    body = response.json()
    found = [m["tier"] for m in body.get("results", [])] + [
        m["tier"] for m in body.get("memories", [])
    ]
    assert set(found) <= {"core"}, body
    if "profile" in body:
        assert body["memories"] == []
        assert body["profile"] == {"static": [], "dynamic": []}


def _no_profile_for_a_client(response, world, persona):
    """The own client's login gets its core memories and no profile."""
    if persona == "client":
        assert response.json()["profile"] == {"static": [], "dynamic": []}


def _sees_acme_only_as_acme(response, world, persona):
    """The outsider's answers never hold this tenant's content."""
    if persona == "outsider":
        text = response.content.decode()
        for content in world.acme_contents:
            assert content not in text


# Who sees which clients through GET /api/v1/clients/: the pages' rule (an advisor their
# assigned clients, a supervisor or an admin the tenant's, a client's login only its own).
CLIENTS_SEEN = {
    "advisor": ["emma", "giulia", "marco"],
    "advisor2": ["carlos"],
    "outsider": ["emma"],  # its own tenant's emma
    "supervisor": ["carlos", "emma", "giulia", "marco"],
    "admin": ["carlos", "emma", "giulia", "marco"],
    "client": ["emma"],
    "heir": ["marco"],
}


def _clients_seen(response, world, persona):
    refs = [c["ref"] for c in response.json()["results"]]
    assert refs == CLIENTS_SEEN[persona], (persona, refs)


EVENT = {"client": "emma", "content": "I prefer phone calls in the morning.", "external_id": "m-1"}
READ_EMMA = cells(200, advisor2=404, heir=404)  # outsider: their own tenant's emma
# A role that may not write is refused before the reference is looked up (403 whatever
# it names); an advisor's "not yours" is a 404, the same as for a reference nobody has.
WRITE_EMMA = cells(201, advisor2=404, client=403, heir=403)
MEMORY_READ = cells(200, outsider=404, advisor2=404, client=404, heir=404)
API_405 = cells(405)
ITEMS_READ = cells(200, advisor2=404, heir=404, client=403)
ITEM_DELETE = cells(200, advisor2=404, outsider=404, client=403, heir=403)
OPEN_200, OPEN_405 = cells(200, anonymous=200), cells(405, anonymous=405)

# Reviews: a role that decides none is refused before the item is looked up.
DECIDE = cells(403, supervisor=200, admin=200)
# Webhooks: the tenant's supervisors and admins; an endpoint is invisible to anyone else.
WEBHOOKS_LIST, WEBHOOKS_ADD = (
    cells(403, supervisor=200, admin=200),
    cells(403, supervisor=201, admin=201),
)
WEBHOOK_DELETE = cells(404, supervisor=200, admin=200)
LOGIN = Denied(302)  # anonymous on a page: to the login form
PAGE_CLIENTS = cells(200, client=302, heir=302, anonymous=LOGIN)
PAGE_EMMA = cells(200, outsider=404, advisor2=404, heir=404, anonymous=LOGIN)
PAGE_EMMA_HISTORY = cells(200, outsider=404, advisor2=404, client=404, heir=404, anonymous=LOGIN)
PAGE_RECALL = cells(200, outsider=404, advisor2=404, client=404, heir=404, anonymous=LOGIN)
# A form posted without htmx is answered with a redirect to the page it came from.
PAGE_TIER = cells(302, advisor=403, outsider=404, advisor2=404, client=404, heir=404)
PAGE_TIER["anonymous"] = LOGIN
PAGE_MINE = cells(200, anonymous=LOGIN)  # a staff user is told they have no client record
PAGE_QUEUE = cells(403, supervisor=200, admin=200, anonymous=LOGIN)
PAGE_DECIDE = {**cells(403, supervisor=302, admin=302)}
PAGE_DECIDE["anonymous"] = LOGIN
PAGE_BULK = cells(403, supervisor=302, admin=302, anonymous=LOGIN)
# Erasure and export: supervisors and admins; whoever else sees emma (her advisor, her own
# login, and the outsider's own emma in their tenant) is refused with 403.
ERASE_EMMA = cells(403, supervisor=200, admin=200, advisor2=404, heir=404)
PAGE_ERASE = cells(403, supervisor=302, admin=302, outsider=404, advisor2=404, heir=404)
PAGE_ERASE["anonymous"] = LOGIN
# Who advises a client: supervisors and admins choose; whoever else sees emma gets 403.
ASSIGN_EMMA = cells(403, supervisor=200, admin=200, advisor2=404, heir=404)
PAGE_ASSIGN = cells(403, supervisor=302, admin=302, outsider=404, advisor2=404, heir=404)
PAGE_ASSIGN["anonymous"] = LOGIN
# Import: a tenant-wide act for supervisors and admins; everyone else signed in gets 403.
IMPORT_ZOE = cells(403, supervisor=201, admin=201)
# Correct and forget from the page: whoever may write the memory (a redirect to its page);
# undo: supervisors and admins. The audit trail: whoever reads the client's whole record.
PAGE_CHANGE_RECALL = cells(302, outsider=404, advisor2=404, client=404, heir=404, anonymous=LOGIN)
PAGE_CHANGE_CORE = cells(302, outsider=404, advisor2=404, client=403, heir=404, anonymous=LOGIN)
PAGE_UNDO = cells(302, advisor=403, outsider=404, advisor2=404, client=404, heir=404)
PAGE_UNDO["anonymous"] = LOGIN
PAGE_POST_ONLY = cells(405, anonymous=LOGIN)
PAGE_EXPORT = cells(403, supervisor=200, admin=200, outsider=404, advisor2=404, heir=404)
PAGE_EXPORT["anonymous"] = LOGIN
REVIEW_LIST = cells(403, supervisor=200, admin=200)
CORRECTION = {"content": "Plans to sell the flat in Bristol.", "reason": "She said so."}
ZOE_EXPORT: dict[str, object] = {
    "format": "memoryhub.client-export/1",
    "exported_at": "2026-12-01T10:00:00+00:00",
    "tenant": "acme",
    "client": {
        "id": "7e5a0c3b-1d2f-4a6b-9c8d-0e1f2a3b4c5d",
        "external_ref": "zoe",
        "display_name": "Zoe",
        "language": "en",
        "created_at": "2026-11-01T09:00:00+00:00",
    },
    **{name: [] for name in ("sessions", "events", "memories", "relations", "review_items")},
    "profile": None,
    "audit": [],
}

ROWS = [
    # --- API ---
    Row("health", "get", "/api/v1/health/", OPEN_200, "read"),
    Row("health", "post", "/api/v1/health/", OPEN_405, "write", body={}),
    Row("events", "post", "/api/v1/events/", WRITE_EMMA, "write", body=EVENT),
    Row("events", "get", "/api/v1/events/", API_405, "read"),
    Row(
        "events batch",
        "post",
        "/api/v1/events/batch/",
        WRITE_EMMA,
        "write",
        body={"events": [EVENT, {**EVENT, "external_id": "m-2", "content": "I live in Leeds."}]},
    ),
    Row("events batch", "get", "/api/v1/events/batch/", API_405, "read"),
    Row(
        "search emma",
        "post",
        "/api/v1/search/",
        READ_EMMA,
        "read",
        body={
            "client": "emma",
            "query": "email contact",
            "filters": {"tier": ["recall"]},
            "explain": True,
        },
        check=_only_core,
    ),
    Row("search", "get", "/api/v1/search/", API_405, "read"),
    # Items hold what was put as it was put: read by the roles that may write memory.
    Row("items emma", "get", "/api/v1/items/?client=emma", ITEMS_READ, "read"),
    Row("item emma", "delete", "/api/v1/items/?client=emma&key=turn-1", ITEM_DELETE, "write"),
    Row(
        "memories emma", "get", "/api/v1/memories/?client=emma", READ_EMMA, "read", check=_only_core
    ),
    Row(
        "memories marco (the heir's own)",
        "get",
        "/api/v1/memories/?client=marco",
        cells(200, outsider=404, advisor2=404, client=404),
        "read",
    ),
    Row(
        "memories giulia (the heir's parent)",
        "get",
        "/api/v1/memories/?client=giulia",
        cells(200, outsider=404, advisor2=404, client=404, heir=404),
        "read",
    ),
    Row("memories", "post", "/api/v1/memories/", API_405, "write", body={}),
    Row("memory emma recall", "get", "/api/v1/memories/{emma_recall}/", MEMORY_READ, "read"),
    Row(
        "memory emma core",
        "get",
        "/api/v1/memories/{emma_core}/",
        cells(200, outsider=404, advisor2=404, heir=404),
        "read",
    ),
    Row("memory giulia core", "get", "/api/v1/memories/{giulia_core}/", MEMORY_READ, "read"),
    Row(
        "forget emma core",
        "delete",
        "/api/v1/memories/{emma_core}/",
        cells(200, outsider=404, advisor2=404, client=403, heir=404),
        "write",
    ),
    Row(
        "forget marco core (the heir's own)",
        "delete",
        "/api/v1/memories/{marco_core}/",
        cells(200, outsider=404, advisor2=404, client=404, heir=403),
        "write",
    ),
    Row(
        "feedback emma core",
        "post",
        "/api/v1/memories/{emma_core}/feedback/",
        cells(200, outsider=404, advisor2=404, client=403, heir=404),
        "write",
        body={"useful": False},
    ),
    Row("feedback", "get", "/api/v1/memories/{emma_core}/feedback/", API_405, "read"),
    Row(
        "history emma core",
        "get",
        "/api/v1/memories/{emma_core}/history/",
        cells(200, outsider=404, advisor2=404, heir=404),
        "read",
    ),
    Row("history", "post", "/api/v1/memories/{emma_core}/history/", API_405, "write", body={}),
    Row(
        "context emma",
        "post",
        "/api/v1/context/",
        READ_EMMA,
        "read",
        body={"client": "emma", "message": "How should we contact her?", "explain": True},
        check=_only_core,
    ),
    Row("context", "get", "/api/v1/context/", API_405, "read"),
    Row("erase emma", "delete", "/api/v1/clients/emma/", ERASE_EMMA, "write"),
    Row("erase missing", "delete", "/api/v1/clients/nobody/", cells(404), "write"),
    Row(
        "name emma",
        "put",
        "/api/v1/clients/emma/",
        cells(200, advisor2=404, client=403, heir=403),
        "write",
        body={"display_name": "Emma C.", "language": "en"},
    ),
    Row("advisors emma", "get", "/api/v1/clients/emma/advisors/", ASSIGN_EMMA, "read"),
    Row(
        "advisors emma",
        "put",
        "/api/v1/clients/emma/advisors/",
        ASSIGN_EMMA,
        "write",
        body={"advisors": ["advisor", "advisor2"]},
    ),
    Row("erase", "post", "/api/v1/clients/emma/", API_405, "write", body={}),
    Row(
        "profile emma",
        "get",
        "/api/v1/clients/emma/profile/",
        READ_EMMA,
        "read",
        check=_no_profile_for_a_client,
    ),
    Row("profile", "post", "/api/v1/clients/emma/profile/", API_405, "write", body={}),
    Row("export emma", "get", "/api/v1/clients/emma/export/", ERASE_EMMA, "read"),
    Row("export", "post", "/api/v1/clients/emma/export/", API_405, "write", body={}),
    Row("import zoe", "post", "/api/v1/clients/", IMPORT_ZOE, "write", body=ZOE_EXPORT),
    Row("clients", "get", "/api/v1/clients/", cells(200), "read", check=_clients_seen),
    Row("tools", "get", "/api/v1/tools/", cells(200), "read"),
    Row("tools", "post", "/api/v1/tools/", API_405, "write", body={}),
    Row("schema", "get", "/api/v1/schema/", OPEN_200, "read"),
    Row("schema", "post", "/api/v1/schema/", OPEN_405, "write", body={}),
    Row("docs", "get", "/api/v1/docs/", OPEN_200, "read"),
    Row("docs", "post", "/api/v1/docs/", OPEN_405, "write", body={}),
    Row(
        "review decide (API)",
        "post",
        "/api/v1/review/{conflict}/decide/",
        DECIDE,
        "write",
        body={"decision": "keep_both", "reason": "Both hold."},
    ),
    Row("review decide (API)", "get", "/api/v1/review/{conflict}/decide/", API_405, "read"),
    Row("review list (API)", "get", "/api/v1/review/", REVIEW_LIST, "read"),
    Row(
        "review list filtered (API)",
        "get",
        "/api/v1/review/?client=emma&type=conflict&sort=oldest&page_size=5",
        cells(403, supervisor=200, admin=200, outsider=403),
        "read",
    ),
    Row("review list (API)", "post", "/api/v1/review/", API_405, "write", body={}),
    Row("review item (API)", "get", "/api/v1/review/{conflict}/", DECIDE, "read"),
    Row("review item (API)", "delete", "/api/v1/review/{conflict}/", API_405, "write"),
    Row("webhooks", "get", "/api/v1/webhooks/", WEBHOOKS_LIST, "read"),
    Row(
        "webhooks",
        "post",
        "/api/v1/webhooks/",
        WEBHOOKS_ADD,
        "write",
        body={"url": "https://crm.example.com/hooks", "events": ["memory.added"]},
    ),
    Row("webhook", "delete", "/api/v1/webhooks/{webhook}/", WEBHOOK_DELETE, "write"),
    # Django answers /mcp/ only under WSGI: it says the MCP transport needs the ASGI app.
    Row("mcp (under WSGI)", "post", "/mcp/", cells(501, anonymous=501), "write", body={}),
    # --- pages ---
    Row("home", "get", "/", cells(200, anonymous=Denied(302)), "read", page=True),
    Row("home", "post", "/", cells(405, anonymous=405), "write", body={}, page=True),
    Row("login", "get", "/login/", cells(200, anonymous=200), "read", page=True),
    Row(
        "login without CSRF token",
        "post",
        "/login/",
        cells(403, anonymous=403),
        "write",
        body={"username": "{username}", "password": PASSWORD},
        page=True,
        csrf=False,
    ),
    Row(
        "login",
        "post",
        "/login/",
        cells(302, anonymous=Denied(200)),  # no such account: the form again
        "write",
        body={"username": "{username}", "password": PASSWORD},
        page=True,
    ),
    Row(
        "logout without CSRF token",
        "post",
        "/logout/",
        cells(403, anonymous=403),
        "write",
        body={},
        page=True,
        csrf=False,
    ),
    Row("clients", "get", "/clients/", PAGE_CLIENTS, "read", page=True),
    Row("client emma", "get", "/clients/{emma}/", PAGE_EMMA, "read", page=True),
    Row("client emma memories", "get", "/clients/{emma}/memories/", PAGE_EMMA, "read", page=True),
    Row(
        "client emma timeline",
        "get",
        "/clients/{emma}/timeline/",
        PAGE_EMMA_HISTORY,
        "read",
        page=True,
    ),
    Row("memory emma recall", "get", "/memories/{emma_recall}/", PAGE_RECALL, "read", page=True),
    Row(
        "tier override emma recall",
        "post",
        "/memories/{emma_recall}/tier/",
        PAGE_TIER,
        "write",
        body={"tier": "archival"},
        page=True,
    ),
    Row(
        "erase emma (page)",
        "post",
        "/clients/{emma}/erase/",
        PAGE_ERASE,
        "write",
        body={"confirm": "emma"},
        page=True,
    ),
    Row(
        "erase emma (page)",
        "get",
        "/clients/{emma}/erase/",
        cells(405, anonymous=LOGIN),
        "read",
        page=True,
    ),
    Row(
        "advisors emma (page)",
        "post",
        "/clients/{emma}/advisors/",
        PAGE_ASSIGN,
        "write",
        body={"advisors": ["advisor", "advisor2"]},
        page=True,
    ),
    Row(
        "advisors emma (page)",
        "get",
        "/clients/{emma}/advisors/",
        cells(405, anonymous=LOGIN),
        "read",
        page=True,
    ),
    Row(
        "correct emma recall",
        "post",
        "/memories/{emma_recall}/correct/",
        PAGE_CHANGE_RECALL,
        "write",
        body=CORRECTION,
        page=True,
    ),
    Row(
        "correct emma core",
        "post",
        "/memories/{emma_core}/correct/",
        PAGE_CHANGE_CORE,
        "write",
        body=CORRECTION,
        page=True,
    ),
    Row("correct", "get", "/memories/{emma_recall}/correct/", PAGE_POST_ONLY, "read", page=True),
    Row(
        "forget emma recall (page)",
        "post",
        "/memories/{emma_recall}/forget/",
        PAGE_CHANGE_RECALL,
        "write",
        body={"reason": "Wrong client."},
        page=True,
    ),
    Row(
        "forget emma core (page)",
        "post",
        "/memories/{emma_core}/forget/",
        PAGE_CHANGE_CORE,
        "write",
        body={"reason": "Wrong client."},
        page=True,
    ),
    Row("forget (page)", "get", "/memories/{emma_core}/forget/", PAGE_POST_ONLY, "read", page=True),
    Row(
        "undo a forget of emma's",
        "post",
        "/memories/{emma_forgotten}/undo/",
        PAGE_UNDO,
        "write",
        body={"entry": "{forget_entry}", "reason": "Forgotten by mistake."},
        page=True,
    ),
    Row("undo", "get", "/memories/{emma_forgotten}/undo/", PAGE_POST_ONLY, "read", page=True),
    Row(
        "audit emma recall", "get", "/memories/{emma_recall}/audit/", PAGE_RECALL, "read", page=True
    ),
    Row(
        "audit emma core",
        "get",
        "/memories/{emma_core}/audit/",
        PAGE_RECALL,  # her own login reads the memory, not who changed it
        "read",
        page=True,
    ),
    Row("audit emma", "get", "/clients/{emma}/audit/", PAGE_EMMA_HISTORY, "read", page=True),
    Row(
        "context preview emma",
        "get",
        "/clients/{emma}/context/?message=How+should+we+contact+her%3F&budget_chars=500",
        PAGE_EMMA_HISTORY,
        "read",
        page=True,
    ),
    Row("export emma (page)", "get", "/clients/{emma}/export/", PAGE_EXPORT, "read", page=True),
    Row(
        "export emma (page)",
        "post",
        "/clients/{emma}/export/",
        cells(405, anonymous=405),  # the method is checked first
        "write",
        body={},
        page=True,
    ),
    Row("clients by conflicts", "get", "/clients/?sort=conflicts", PAGE_CLIENTS, "read", page=True),
    Row("my memory", "get", "/me/", PAGE_MINE, "read", page=True),
    Row("review queue", "get", "/review/", PAGE_QUEUE, "read", page=True),
    Row(
        "review queue filtered",
        "get",
        "/review/?type=promotion&client={emma}&kind=semantic&sort=score",
        PAGE_QUEUE,
        "read",
        page=True,
    ),
    Row(
        "review decide",
        "post",
        "/review/{conflict}/decide/",
        PAGE_DECIDE,
        "write",
        body={"decision": "keep_both", "reason": "Both hold."},
        page=True,
    ),
    Row(
        "review bulk",
        "post",
        "/review/bulk/",
        PAGE_BULK,
        "write",
        body={"type": "conflict", "decision": "keep_both", "items": "{conflict}"},
        page=True,
    ),
    Row(
        "admin",
        "get",
        "/admin/memories/memory/",
        cells(Denied(302), admin=200, anonymous=Denied(302)),
        "read",
        page=True,
    ),
    Row(
        "admin add client",
        "post",
        "/admin/memories/client/add/",
        cells(Denied(302), admin=302, anonymous=Denied(302)),
        "write",
        body={"tenant": "{tenant}", "external_ref": "added-in-admin", "display_name": "New"},
        page=True,
    ),
]


@dataclass
class World:
    personas: Personas
    memory_ids: dict[str, str]
    ids: dict[str, str]
    acme_contents: list[str]

    def user(self, persona):
        name = {"client": "client_user"}.get(persona, persona)
        return None if persona == "anonymous" else getattr(self.personas, name)


@pytest.fixture
def world(personas) -> World:
    def memory(client, tier, content):
        return factories.MemoryFactory.create(client=client, tier=tier, content=content)

    made = {
        "emma_core": memory(personas.client, Tier.CORE, "Prefers to be contacted by email."),
        "emma_recall": memory(personas.client, Tier.RECALL, "Plans to sell the flat in Bath."),
        "giulia_core": memory(personas.parent, Tier.CORE, "Wants quarterly reports in Italian."),
        "marco_core": memory(personas.heir_client, Tier.CORE, "Interested in sustainable ETFs."),
        "carlos_core": memory(personas.advisor2_client, Tier.CORE, "Sails every summer."),
    }
    factories.MemoryFactory.create(
        client=personas.foreign_client, content="Globex emma likes golf."
    )
    factories.EventFactory.create(client=personas.client, item_key="turn-1")
    newer = memory(personas.client, Tier.RECALL, "Prefers phone calls.")
    conflict = factories.ReviewItemFactory.create(memory=newer, other_memory=made["emma_recall"])
    forgotten = memory(personas.client, Tier.RECALL, "Banks with Barclays.")
    memory_forget(memory=forgotten, actor=personas.advisor, actor_label="advisor", reason="No.")
    forget_entry = AuditEntry.objects.get(action="memory.forget", object_id=str(forgotten.pk))
    webhook = factories.WebhookEndpointFactory.create(tenant=personas.tenant)
    return World(
        personas=personas,
        memory_ids={name: str(m.pk) for name, m in made.items()},
        ids={
            **{name: str(m.pk) for name, m in made.items()},
            "emma": str(personas.client.pk),
            "conflict": str(conflict.pk),
            "emma_forgotten": str(forgotten.pk),
            "forget_entry": str(forget_entry.pk),
            "webhook": str(webhook.pk),
        },
        acme_contents=[m.content for m in made.values()],
    )


def _fill(value, world, user):
    if isinstance(value, str):
        return value.format(
            **world.ids,
            username=user.get_username() if user else "nobody",
            tenant=world.personas.tenant.pk,
        )
    if isinstance(value, dict):
        return {k: _fill(v, world, user) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, world, user) for v in value]
    return value


def _prepare(row: Row, persona: str, world: World):
    """Log in, make a key, fetch a CSRF token: everything but the request itself, which
    the returned function sends (so the snapshot sees only what the request did)."""
    user = world.user(persona)
    path = _fill(row.path, world, user)
    body = _fill(row.body, world, user)
    if row.page:
        browser = PageClient(enforce_csrf_checks=True)
        if user is not None:
            browser.force_login(user)
        data = dict(body or {})
        if row.csrf and row.method != "get":
            browser.get("/login/")  # sets the CSRF cookie, as a form page would
            data["csrfmiddlewaretoken"] = browser.cookies["csrftoken"].value
        if row.method == "get":
            return lambda: browser.get(path)
        return lambda: getattr(browser, row.method)(path, data)
    api = APIClient()
    if user is not None:
        tenant = world.personas.other_tenant if persona == "outsider" else world.personas.tenant
        _, raw = factories.api_key_for(user, tenant)
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        api.get("/api/v1/health/")  # the key's first use is recorded before the snapshot
    if row.method == "get":
        return lambda: api.get(path)
    return lambda: getattr(api, row.method)(path, body, format="json")


def _is_denial(expected) -> bool:
    return isinstance(expected, Denied) or expected >= 400


CELLS = [(row, persona) for row in ROWS for persona in COLUMNS]


@pytest.mark.parametrize(
    ("row", "persona"),
    CELLS,
    ids=[f"{row.method.upper()} {row.name} · {persona}" for row, persona in CELLS],
)
def test_matrix(row, persona, world):
    expected = row.expect[persona]
    status = expected.status if isinstance(expected, Denied) else expected
    denied = _is_denial(expected)
    acme = world.personas.tenant
    send = _prepare(row, persona, world)
    before = take() if denied else take(tenant=acme) if persona == "outsider" else None

    response = send()

    assert response.status_code == status, response.content[:500]
    if denied:
        assert before is not None  # taken above for every denial
        assert take().changes(before) == []
        if row.page and status == 302:
            assert "login" in response["Location"]
        if not row.page and status >= 400:
            assert set(response.json()["error"]) == {"code", "message", "fields"}
    elif persona == "outsider":
        assert before is not None  # taken above for the outsider
        assert take(tenant=acme).changes(before) == []
        _sees_acme_only_as_acme(response, world, persona)
    if row.check and not denied:
        row.check(response, world, persona)


def _endpoint(row: Row) -> str:
    """The endpoint or page a row calls: targets and query strings aside, the admin as
    one page."""
    path = re.sub(r"\{\w+\}", "{id}", row.path.split("?")[0])
    path = re.sub(r"^/api/v1/clients/(?!import/)[^/]+/", "/api/v1/clients/{ref}/", path)
    return "/admin/" if path.startswith("/admin/") else path


def test_matrix_size(record_property):
    """The closing note's count: personas × endpoints and pages × methods."""
    endpoints = {_endpoint(row) for row in ROWS}
    pairs = {(_endpoint(row), row.method) for row in ROWS}
    assert len(PERSONAS) == 7
    # 23 API endpoints (schema and docs included), /mcp/ under WSGI, 23 pages
    assert len(endpoints) == 47
    assert len(pairs) == 79  # endpoint × method; 92 rows with the targets
    assert len(ROWS) == 92
    assert len([cell for cell in CELLS if cell[1] != "anonymous"]) == 7 * 92 == 644
    assert len(CELLS) == 736  # and an anonymous caller for every row
    record_property("matrix", f"7 personas × {len(ROWS)} rows ({len(pairs)} endpoint × method)")


def _memory_calls(memory_id):
    base = f"/api/v1/memories/{memory_id}/"
    return [
        ("get", base, None),
        ("delete", base, None),
        ("get", base + "history/", None),
        ("post", base + "feedback/", {"useful": True}),
    ]


def _client_reads(ref):
    return [
        ("post", "/api/v1/search/", {"client": ref, "query": "anything"}),
        ("post", "/api/v1/context/", {"client": ref, "message": "anything"}),
        ("get", f"/api/v1/memories/?client={ref}", None),
    ]


def _call(api, method, path, body):
    return api.get(path) if method == "get" else getattr(api, method)(path, body, format="json")


def test_guessing_ids_and_references_across_tenants_finds_nothing(world, personas):
    foreign = factories.MemoryFactory.create(client=personas.foreign_client, tier=Tier.CORE)
    guesses = []  # (user, key's tenant, method, path, body)
    for memory_id in world.memory_ids.values():
        guesses += [
            (personas.outsider, personas.other_tenant, *c) for c in _memory_calls(memory_id)
        ]
    for user in (personas.supervisor, personas.admin):  # the superuser too: a key has a tenant
        guesses += [(user, personas.tenant, *c) for c in _memory_calls(foreign.pk)]
    for ref in ("giulia", "marco", "carlos"):  # references only this tenant has
        guesses += [(personas.outsider, personas.other_tenant, *c) for c in _client_reads(ref)]
    guesses += [(personas.supervisor, personas.tenant, *c) for c in _client_reads("zoe")]

    apis = {}
    for user, tenant, *_ in guesses:
        if user not in apis:
            _, raw = factories.api_key_for(user, tenant)
            apis[user] = APIClient()
            apis[user].credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
            apis[user].get("/api/v1/health/")  # the key's first use, before the snapshot

    before = take()
    for user, _tenant, method, path, body in guesses:
        response = _call(apis[user], method, path, body)
        assert response.status_code == 404, (user, method, path, response.content)
        assert response.json()["error"]["code"] == "not_found"
        assert str(foreign.pk) not in response.content.decode()
    assert take().changes(before) == []
    assert len(guesses) == 5 * 4 + 2 * 4 + 3 * 3 + 3


def test_the_same_reference_in_another_tenant_is_another_client(world, personas):
    """Writing about a reference that only this tenant has creates the writer's own client
    in their tenant; this tenant's client is untouched."""
    personas.other_tenant.advisors_create_clients = True
    personas.other_tenant.save(update_fields=["advisors_create_clients"])
    _, raw = factories.api_key_for(personas.outsider, personas.other_tenant)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    before = take(tenant=personas.tenant)
    response = api.post(
        "/api/v1/events/", {"client": "carlos", "content": "I love sailing."}, format="json"
    )
    assert response.status_code == 201
    assert take(tenant=personas.tenant).changes(before) == []
    created = personas.other_tenant.clients.get(external_ref="carlos")
    assert created != personas.advisor2_client
    assert response.json()["event"]["client"] == "carlos"


def test_a_refused_write_costs_no_extraction_or_embedding(personas, monkeypatch):
    """A key that may not write is refused before the expensive steps run."""
    from memories.services.write import ingest

    def boom(*args, **kwargs):
        raise AssertionError("extraction ran for a refused write")

    monkeypatch.setattr(ingest, "prepare_all", boom)
    _, raw = factories.api_key_for(personas.client_user, personas.tenant)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    events = [{"client": "emma", "content": "x"}, {"client": "giulia", "content": "y"}]
    assert api.post("/api/v1/events/batch/", {"events": events}, format="json").status_code == 403
