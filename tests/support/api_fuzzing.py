"""What the schemathesis tests share (tests/test_schemathesis.py, one operation at a time;
tests/test_schemathesis_stateful.py, calls chained by the schema's links): the schema as
the app serves it, the rules its operations state in words (which JSON Schema cannot
express, so generated bodies that break them are dropped), the seeded tenant, its
API keys, and running the app in-process inside the test's transaction."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

import schemathesis
from django.conf import settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import strategies as st

from curation.models import ReviewItem
from curation.services.review import CONFLICT_DECISIONS
from memories.api.inputs import MAX_METADATA_BYTES
from memories.models import Role, Tier
from memories.services.tenancy.members import client_assign_advisor
from tests.support import factories

SEEDED_CLIENT = "emma-clarke"

CONFIG = schemathesis.Config.from_dict(
    {
        "phases": {
            # The links the schema states (memories/api/links.py), not guessed ones: the
            # run follows what a client generated from the schema would.
            "stateful": {"inference": {"algorithms": []}},
        },
        "operations": [
            {
                # Forgetting a memory is a soft delete: the memory stays readable, with
                # status "deleted", as history (DESIGN.md).
                "include-path-regex": "^/api/v1/memories/",
                "checks": {"use_after_free": {"enabled": False}},
            },
            {
                # An erased client's reference is the caller's: a supervisor's next event
                # under it creates a new client, which then answers (docs/webhooks.md). That
                # erasure leaves nothing behind is checked where the run cannot tell the two
                # apart: tests/test_erasure_export.py.
                "include-path-regex": "^/api/v1/clients/",
                "checks": {"use_after_free": {"enabled": False}},
            },
            {
                # The coverage phase builds its boundary strings to match a field's pattern
                # at the field's stated maximum length, at collection. For these two fields
                # (the context's message, up to 8,000 characters; a webhook's URL, whose
                # pattern checks the host's labels and port) that took minutes each, most of
                # the suite's collection. Generated requests, valid and invalid, still reach
                # both operations; their limits are tested in tests/test_request_limits.py
                # and tests/test_webhooks_api.py.
                "include-name-regex": "^POST /api/v1/(context|webhooks)/$",
                "phases": {"coverage": {"enabled": False}},
            },
        ],
    }
)

# The schema states the configured limits (an event's characters, a batch's events), and
# schemathesis sends requests just past them: small ones keep those requests small. The
# schema is loaded with them, and the app answers with them (``small_limits``).
LIMITS = {"MAX_EVENT_CHARS": 2000, "MAX_BATCH_EVENTS": 5}

# Loaded at collection (the schema needs no database); schemathesis.pytest.from_fixture
# would load it per test, but does not work with pytest 9.
with override_settings(MEMORYHUB={**getattr(settings, "MEMORYHUB", {}), **LIMITS}):
    schema = schemathesis.openapi.from_wsgi(
        "/api/v1/schema/?format=json", get_wsgi_application(), config=CONFIG
    )
assert (
    schema.raw_schema["components"]["schemas"]["BatchInRequest"]["properties"]["events"]["maxItems"]
    == LIMITS["MAX_BATCH_EVENTS"]
)


def small_limits(settings) -> None:
    """The app answers with the limits the schema was loaded with (``settings``: the
    pytest-django fixture)."""
    settings.MEMORYHUB = {**getattr(settings, "MEMORYHUB", {}), **LIMITS}


@dataclass
class Seeded:
    keys: dict[str, str]  # role → raw API key
    review_item: str  # an open conflict between two of the client's memories


class Running:
    """The test that runs: its key, and its seeded review item (schemathesis asks as it
    generates each case, after the test's fixtures have run)."""

    key = ""
    review_item = ""


@schema.auth(refresh_interval=None)  # a new key per test: never reuse an earlier one
class ApiKeyAuth:
    """The running test's key, sent as the schema says."""

    def get(self, case, context):
        return Running.key or None  # none yet: the case goes without, as generated

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@contextmanager
def running(seeded: Seeded, role: str) -> Iterator[str]:
    """Generate and send cases with ``role``'s key; yields the key."""
    Running.key, Running.review_item = seeded.keys[role], seeded.review_item
    try:
        yield Running.key
    finally:
        Running.key = Running.review_item = ""


@contextmanager
def in_process_app() -> Iterator[None]:
    """The app runs in-process, inside the test's transaction: like Django's test client,
    keep a finished request from closing the test's database connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def seed(tenant) -> Seeded:
    """A client with memories and an open conflict, its advisor's agent, a supervisor, an
    admin, the client's own login, their heir's and a prospect's (each with a client record
    of their own), each with a key."""
    users = {}
    for username, role in (
        ("agent", Role.ADVISOR),
        ("supervisor", Role.SUPERVISOR),
        ("admin", Role.ADMIN),
        ("emma", Role.CLIENT),
        ("marco", Role.NEXTGEN_HEIR),
        ("pia", Role.PROSPECT),
    ):
        users[role] = factories.UserFactory.create(username=username)
        factories.MembershipFactory.create(tenant=tenant, user=users[role], role=role)
    client = factories.ClientFactory.create(
        tenant=tenant, external_ref=SEEDED_CLIENT, user=users[Role.CLIENT]
    )
    client_assign_advisor(client=client, advisor=users[Role.ADVISOR])
    heir = factories.ClientFactory.create(
        tenant=tenant, external_ref="marco", user=users[Role.NEXTGEN_HEIR], family_parent=client
    )
    prospect = factories.ClientFactory.create(
        tenant=tenant, external_ref="pia", user=users[Role.PROSPECT]
    )
    for own in (heir, prospect):
        factories.MemoryFactory.create(client=own, tier=Tier.CORE, content="Prefers letters.")
    old = factories.MemoryFactory.create(client=client, tier=Tier.CORE, content="Prefers email.")
    factories.MemoryFactory.create(client=client, content="Plans to sell the flat in Bath.")
    new = factories.MemoryFactory.create(client=client, content="Prefers phone calls.")
    item = factories.ReviewItemFactory.create(memory=new, other_memory=old)
    keys = {role.lower(): factories.api_key_for(user, tenant)[1] for role, user in users.items()}
    return Seeded(keys=keys, review_item=str(item.pk))


# --- generated requests -----------------------------------------------------------------


INFORMATIVE = "I moved to Lisbon with my wife last spring."


@schema.hook
def flatmap_case(context, case):
    """Half the valid requests that name a client, or a review item, name the seeded one:
    search, context, the memory list and the export find something, and their links lead
    on; a decision has an open item to decide; an event says something to remember."""
    meta = case.meta
    if meta is None or meta.generation.mode.is_negative:
        return st.just(case)
    return st.booleans().map(lambda seeded: _with_seeded_names(case) if seeded else case)


def _with_seeded_names(case):
    path = case.path_parameters or {}
    decision = case.body.get("decision") if isinstance(case.body, dict) else None
    if "item_id" in path and Running.review_item:
        if decision in CONFLICT_DECISIONS:  # the seeded item is a conflict
            case.path_parameters = {**path, "item_id": Running.review_item}
    elif "ref" in path:
        case.path_parameters = {**path, "ref": SEEDED_CLIENT}
    elif "client" in (case.query or {}):
        case.query = {**case.query, "client": SEEDED_CLIENT}
    elif isinstance(case.body, dict) and isinstance(case.body.get("client"), str):
        case.body = {**case.body, "client": SEEDED_CLIENT}
        if isinstance(case.body.get("content"), str):
            # Something the client says that teaches a memory, so the event's links (to
            # its memories) lead on whatever the generated words were.
            case.body["content"] = INFORMATIVE
    return case


def _moment(value):
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _in_range(value) -> bool:
    """A time or day as the schema states them: from 1900-01-01 to 9999-12-31 (in UTC)."""
    moment = _moment(value) if isinstance(value, str) else None
    if moment is None:
        return True  # not a time: refused for its shape, as the schema says
    try:
        return moment.astimezone(UTC) >= datetime(1900, 1, 1, tzinfo=UTC)
    except OverflowError:
        return False


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


def _keeps_documented_rules(body) -> bool:
    """The rules the schema states in words, between fields, items or the clock, which
    JSON Schema cannot express: ``since`` not after ``until``; ``observed_at`` not in the
    future; times from 1900 to 9999; a batch does not repeat an external_id for a client;
    metadata ≤ 16 KB, with no NUL in it."""
    if not isinstance(body, dict):
        return True
    filters = body.get("filters")
    if isinstance(filters, dict):
        for first, last in (("since", "until"), ("happened_since", "happened_until")):
            since, until = _moment(filters.get(first)), _moment(filters.get(last))
            if since and until and since > until:
                return False
        times = ("since", "until", "as_of", "happened_since", "happened_until")
        if not all(_in_range(filters.get(name)) for name in times):
            return False
    events = body["events"] if isinstance(body.get("events"), list) else [body]
    seen = set()
    for event in events:
        if not isinstance(event, dict):
            continue
        observed = _moment(event.get("observed_at"))
        if (observed and observed > datetime.now(UTC)) or not _in_range(event.get("observed_at")):
            return False
        metadata = event.get("metadata") or {}
        if len(json.dumps(metadata)) > MAX_METADATA_BYTES or _has_nul(metadata):
            return False
        key = (event.get("client"), event.get("external_id"))
        if all(isinstance(part, str) for part in key) and key[1]:
            if key in seen:
                return False
            seen.add(key)
    return True


def _import_keeps_documented_rules(doc) -> bool:
    """An import document's rules between items, as its operation states them: unique
    ids, references to its own rows, unique session references, event external ids,
    evidence pairs and relation edges, no relation loop, review items whose other
    memory and decision agree with their type and state; times from 1900 to 9999; no NUL
    inside free-form JSON."""
    lists = [doc.get(name) for name in ("sessions", "events", "memories", "review_items")]
    if not all(isinstance(items, list) for items in lists) or not isinstance(
        doc.get("relations"), list
    ):
        return True  # refused for its shape, as the schema says
    sessions, events, memories, reviews = (
        [i for i in items if isinstance(i, dict)] for items in lists
    )
    free_form = [row.get(key) for row in events + memories for key in ("metadata", "entities")]
    if isinstance(doc.get("profile"), dict):
        free_form += [doc["profile"].get("static"), doc["profile"].get("dynamic")]
    if _has_nul(free_form):
        return False
    ids = [row.get("id") for rows in (sessions, events, memories, reviews) for row in rows]
    own = {
        "session": {s.get("id") for s in sessions} | {None},
        "event": {e.get("id") for e in events},
        "memory": {m.get("id") for m in memories},
    }
    evidence = [
        (m.get("id"), ev.get("event"))
        for m in memories
        for ev in (m["evidence"] if isinstance(m.get("evidence"), list) else [])
        if isinstance(ev, dict)
    ]
    edges = [
        (r.get("source"), r.get("target"), r.get("type"))
        for r in doc["relations"]
        if isinstance(r, dict)
    ]
    external_ids = [e.get("external_id") for e in events if e.get("external_id")]
    session_refs = [s.get("external_ref") for s in sessions]
    open_reviews = [
        (r.get("type"), r.get("memory"), r.get("other_memory"))
        for r in reviews
        if r.get("state") == "open"
    ]
    rows = [doc.get("client"), doc.get("profile"), *sessions, *events, *memories, *reviews]
    rows += [r for name in ("relations", "audit") for r in doc.get(name) or []]
    times = [
        row.get(name)
        for row in rows
        if isinstance(row, dict)
        for name in row
        if name.endswith("_at") or name in ("at", "occurred_on")
    ]
    return (
        all(_in_range(t) for t in times)
        and all(len(set(x)) == len(x) for x in (ids, evidence, edges, external_ids, session_refs))
        and len(set(open_reviews)) == len(open_reviews)
        and all(row.get("session") in own["session"] for row in events + memories)
        and all(event in own["event"] for _, event in evidence)
        and all(s in own["memory"] and t in own["memory"] and s != t for s, t, _ in edges)
        and all(
            r.get("memory") in own["memory"]
            and r.get("other_memory") in own["memory"] | {None}
            and (r.get("type") == "promotion" or r.get("other_memory") is not None)
            and r.get("type") in ("conflict", "promotion")
            and (
                (r.get("state") == "open" and r.get("decision") == "")
                or r.get("state") == "obsolete"
                or (r.get("state") == "decided" and r.get("decision") not in ("", None))
            )
            for r in reviews
        )
    )


@schema.hook
def filter_case(context, case):
    """A decision the item's type takes, as the decide operation states: a conflict
    takes keep_old, accept_new, keep_both or merge; a promotion approve or reject."""
    item_id = (case.path_parameters or {}).get("item_id")
    decision = case.body.get("decision") if isinstance(case.body, dict) else None
    if not Running.key:  # at collection, with no database: no item exists
        return True
    try:
        item_id = uuid.UUID(str(item_id))
    except ValueError:
        return True
    kind = ReviewItem.objects.filter(pk=item_id).values_list("type", flat=True).first()
    if kind is None or not isinstance(decision, str):
        return True
    return (decision in CONFLICT_DECISIONS) == (kind == ReviewItem.Type.CONFLICT)


@schema.hook
def filter_body(context, body):
    if isinstance(body, dict) and "format" in body:
        try:
            return _import_keeps_documented_rules(body)
        except TypeError:  # an id that is no string: refused for its shape already
            return True
    return _keeps_documented_rules(body)
