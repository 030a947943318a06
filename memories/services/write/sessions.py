"""An event's session: created with the first event that names it, and spanning its events
(a session starts when its first event happened, an import posting October's call in
December, and ends with its last). One statement for all the sessions of a call."""

from __future__ import annotations

import functools
import uuid

from django.db import connection

from memories.models import Client, Session
from memories.services.write.prepare import Prepared


def new_events_by_session(
    prepared: list[Prepared], clients: dict[str, Client], known: dict
) -> dict[tuple, list[Prepared]]:
    """(client id, session reference) → the call's events new to it (an event already
    stored under its id is not new), in call order."""
    seen = set(known)
    found: dict[tuple, list[Prepared]] = {}
    for p in prepared:
        client_id = clients[p.item.client].pk
        if p.item.external_id:
            if (client_id, p.item.external_id) in seen:
                continue
            seen.add((client_id, p.item.external_id))
        if p.item.session:
            found.setdefault((client_id, p.item.session), []).append(p)
    return found


_SESSION_COLUMNS = [field.attname for field in Session._meta.concrete_fields]


@functools.cache
def _sessions_upsert() -> str:
    """Each session of the call's new events, in one statement: created if missing (a
    concurrent writer's wins), and its span widened to them. A session starts when its
    first event happened (an import posts October's call in December) and ends with its
    last."""
    user_id = Session._meta.get_field("user").target_field.db_type(connection)
    return (
        f"INSERT INTO {Session._meta.db_table} AS s "  # noqa: S608 - the model's own names
        "(id, tenant_id, client_id, external_ref, user_id, agent, project_id, task_id, "
        "run_id, started_at, last_event_at) "
        f"SELECT q.id, q.tenant_id, q.client_id, q.ref, %s::{user_id}, q.agent, '', '', '', "
        "q.first, q.last FROM unnest(%s::uuid[], %s::uuid[], %s::uuid[], %s::text[], "
        "%s::text[], %s::timestamptz[], %s::timestamptz[]) "
        "AS q(id, tenant_id, client_id, ref, agent, first, last) "
        "ON CONFLICT (client_id, external_ref) DO UPDATE SET "
        "started_at = LEAST(s.started_at, EXCLUDED.started_at), "
        "last_event_at = GREATEST(COALESCE(s.last_event_at, EXCLUDED.last_event_at), "
        "EXCLUDED.last_event_at) "
        f"RETURNING {', '.join(f's.{name}' for name in _SESSION_COLUMNS)}"
    )


def sessions_spanning(
    by_session: dict[tuple, list[Prepared]], clients: dict[str, Client], user
) -> dict:
    """(client id, session reference) → Session, for the sessions of the call's new
    events, each created if missing and spanning them: one statement."""
    if not by_session:
        return {}
    tenant_of = {c.pk: c.tenant_id for c in clients.values()}
    rows = [
        (
            uuid.uuid4(),
            tenant_of[client_id],
            client_id,
            ref,
            events[0].item.agent,
            min(p.observed_at for p in events),
            max(p.observed_at for p in events),
        )
        for (client_id, ref), events in sorted(by_session.items())
    ]
    columns = [list(column) for column in zip(*rows, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(_sessions_upsert(), [getattr(user, "pk", None), *columns])
        found = [Session.from_db(connection.alias, _SESSION_COLUMNS, row) for row in cursor]
    return {(s.client_id, s.external_ref): s for s in found}
