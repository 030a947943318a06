"""The client export document's shape: its JSON Schema (``document_schema``, which the
API documents the import body with) and its parsing (``document_parse``: ids and times
parsed, every reference checked, every problem named in one DomainError)."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Callable
from datetime import UTC, date
from typing import Any

from django.utils.dateparse import parse_datetime

from memories import jsonbody
from memories.errors import DomainError
from memories.models import (
    Category,
    EventSource,
    Evidence,
    Kind,
    Precision,
    RelationType,
    SourceKind,
    Status,
    Tier,
)
from memories.services.client_data.export import FORMAT, IMPORTED
from memories.timebounds import EARLIEST, too_early

_HAS_TEXT = re.compile(r"\S")
NUL = "may not hold a NUL character (PostgreSQL text cannot)"
# ... as the schema says of every text.
_NO_NUL = "^[^\\x00]*$"
_NO_NUL_WITH_TEXT = f"^[^\\x00]*{_HAS_TEXT.pattern}[^\\x00]*$"


def _check(schema: dict, nullable: bool, parse: Callable) -> Callable:
    """A field's check (raises ValueError naming the rule) carrying its JSON Schema."""

    def check(value):
        if value is None and nullable:
            return None
        return parse(value)

    check.schema = schema | ({"nullable": True} if nullable else {})  # type: ignore[attr-defined]
    return check


def _text(max_length: int | None = None, *, required: bool = False) -> Callable:
    def parse(value):
        if not isinstance(value, str):
            raise ValueError("must be text")
        if "\x00" in value:
            raise ValueError(NUL)
        if max_length is not None and len(value) > max_length:
            raise ValueError(f"must be at most {max_length} characters")
        if required and not _HAS_TEXT.search(value):
            raise ValueError("may not be blank")
        return value

    schema = {"type": "string"} | ({"maxLength": max_length} if max_length else {})
    return _check(schema | {"pattern": _NO_NUL_WITH_TEXT if required else _NO_NUL}, False, parse)


def _kind(kind: type, name: str, schema: dict) -> Callable:
    def parse(value):
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise ValueError(f"must be {name}")
        if isinstance(value, dict | list) and any("\x00" in s for s in jsonbody.strings(value)):
            raise ValueError(NUL)
        return value

    return _check(schema, False, parse)


def _unit(value):
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError("must be a number from 0 to 1")
    return value


def _time(nullable: bool = False) -> Callable:
    def parse(value):
        try:
            parsed = parse_datetime(value) if isinstance(value, str) else None
            # In UTC, as stored: a time that leaves Python's years 1-9999 there could be
            # stored but never read back.
            parsed = parsed.astimezone(UTC) if parsed and parsed.tzinfo else None
        except (ValueError, OverflowError):
            parsed = None
        if parsed is None:
            raise ValueError("must be an ISO 8601 time with its offset")
        if too_early(parsed):
            raise ValueError(f"must be {EARLIEST.isoformat()} or later")
        return parsed

    schema = {"type": "string", "format": "date-time"}
    said = "From 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z (in UTC)."
    return _check(schema | {"description": said}, nullable, parse)


def _day(nullable: bool = False) -> Callable:
    """Any day: the day a memory tells of (``occurred_on``) is resolved from what was said
    ("last week", "999 years ago") and can be centuries before 1900 however late it was
    said. Taken as it was stored, not moved to 1900-01-01, which would make the memory say
    what nobody said: unlike a time, a day has no zone to leave Python's years by, and
    nothing ranks by its age (it is compared, never raised to a power as recency is)."""

    def checked(value):
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                return date.fromisoformat(value)
        raise ValueError("must be an ISO 8601 date (YYYY-MM-DD)")

    schema = {"type": "string", "format": "date", "description": "Any day from 0001-01-01 on."}
    return _check(schema, nullable, checked)


def _uuid(nullable: bool = False) -> Callable:
    def parse(value):
        try:
            return uuid.UUID(value)
        except (AttributeError, TypeError, ValueError):
            raise ValueError("must be a UUID") from None

    return _check({"type": "string", "format": "uuid"}, nullable, parse)


def _choice(choices) -> Callable:
    def parse(value):
        if value not in choices.values:
            raise ValueError(f"must be one of {', '.join(map(repr, choices.values))}")
        return value

    return _check({"type": "string", "enum": list(choices.values)}, False, parse)


STR, S100, S200 = _text(), _text(100), _text(200)
_NO_NUL_INSIDE = {"description": "Any JSON, with no NUL character in it."}
LIST = _kind(list, "a list", {"type": "array", "items": {}} | _NO_NUL_INSIDE)
DICT = _kind(dict, "an object", {"type": "object"} | _NO_NUL_INSIDE)
BOOL = _kind(bool, "true or false", {"type": "boolean"})
UNIT = _check({"type": "number", "minimum": 0, "maximum": 1}, False, _unit)
TAGS = _kind(
    list,
    "a list",
    {"type": "array", "items": {"type": "string", "maxLength": 64, "pattern": _NO_NUL}},
)

CLIENT = {"id": _uuid(), "external_ref": _text(200, required=True), "display_name": S200}
CLIENT |= {"language": _text(16), "created_at": _time()}
SESSION = {"id": _uuid(), "external_ref": S200, "agent": S100, "project_id": S200}
SESSION |= {"task_id": S200, "run_id": S200, "started_at": _time()}
SESSION |= {"last_event_at": _time(nullable=True)}
EVENT = {"id": _uuid(), "session": _uuid(nullable=True), "source": _choice(EventSource)}
EVENT |= {"speaker": S100, "content": STR, "external_id": S200, "observed_at": _time()}
EVENT |= {"received_at": _time(), "agent": S100, "entities": LIST, "metadata": DICT}
EVIDENCE = {"event": _uuid(), "role": _choice(Evidence.Role), "action": _text(16)}
MEMORY = {"id": _uuid(), "session": _uuid(nullable=True), "kind": _choice(Kind)}
MEMORY |= {"category": _choice(Category), "title": S200, "content": _text(required=True)}
MEMORY |= {"attribute": S100, "attribute_value": S200, "negated": BOOL}
MEMORY |= {"language": _text(16), "tier": _choice(Tier), "status": _choice(Status)}
MEMORY |= {"status_reason": _text(300), "confidence": UNIT, "importance": UNIT}
MEMORY |= {"tags": TAGS, "metadata": DICT, "observed_at": _time(), "created_at": _time()}
MEMORY |= {"invalidated_at": _time(nullable=True), "expires_at": _time(nullable=True)}
MEMORY |= {"source_kind": _choice(SourceKind), "source_ref": _text(300), "evidence": LIST}
# Who said it, whom it is about, when it happened, what it answered: documents exported
# before memoryhub kept these have none, and are read with the defaults.
MEMORY_OPTIONAL: dict[str, tuple[Callable, Any]] = {
    "speaker": (S100, ""),
    "subject": (S200, ""),
    "occurred_on": (_day(nullable=True), None),
    "occurred_precision": (
        _check(
            {"type": "string", "enum": ["", *Precision.values]},
            False,
            lambda v: _choice(Precision)(v) if v else "",
        ),
        "",
    ),
    "context": (STR, ""),
    # What it is about, as the topic classifier read it (memories.services.topics).
    "topic": (_text(32), ""),
    "topic_probability": (UNIT, 0.0),
    "topics": (
        _kind(
            dict,
            "an object of topic names and probabilities from 0 to 1",
            {"type": "object", "additionalProperties": {"type": "number"}},
        ),
        {},
    ),
}
# The names the client is called by in their conversations.
CLIENT_OPTIONAL: dict[str, tuple[Callable, Any]] = {"names": (TAGS, [])}
# Whether an entry came with an earlier import: it is marked so again.
AUDIT_OPTIONAL: dict[str, tuple[Callable, Any]] = {IMPORTED: (BOOL, False)}
# Items (a framework store's keys): documents exported before them have none.
EVENT_OPTIONAL: dict[str, tuple[Callable, Any]] = {
    "item_key": (_text(300), ""),
}
OPTIONAL = {"events": EVENT_OPTIONAL, "memories": MEMORY_OPTIONAL, "audit": AUDIT_OPTIONAL}
RELATION = {"source": _uuid(), "target": _uuid(), "type": _choice(RelationType)}
RELATION |= {"confidence": UNIT, "created_at": _time()}
PROFILE = {"static": LIST, "dynamic": LIST, "refreshed_at": _time()}
REVIEW = {"id": _uuid(), "type": _text(16), "state": _text(16), "memory": _uuid()}
REVIEW |= {"other_memory": _uuid(nullable=True), "summary": _text(500), "decision": _text(16)}
REVIEW |= {"reason": STR, "created_at": _time(), "decided_at": _time(nullable=True)}
AUDIT = {"action": _text(64), "object_type": _text(64), "object_id": _text(64)}
AUDIT |= {"actor": S200, "at": _time()}
LISTS = {"sessions": SESSION, "events": EVENT, "memories": MEMORY, "relations": RELATION}
LISTS |= {"review_items": REVIEW, "audit": AUDIT}
# Deleted items (memories.services.write.items); documents exported before them have none.
ITEM_DELETION = {"key": _text(300), "deleted_at": _time()}


def _schema_of(spec: dict, optional: dict | None = None, **extra) -> dict:
    properties = {key: check.schema for key, check in spec.items()} | extra
    required = list(properties)
    properties |= {key: check.schema for key, (check, _) in (optional or {}).items()}
    return {"type": "object", "required": required, "properties": properties}


def document_schema() -> dict:
    """The document's JSON Schema (the API documents its request body with it)."""
    lists = {
        name: {"type": "array", "items": _schema_of(spec, OPTIONAL.get(name))}
        for name, spec in LISTS.items()
    }
    lists["memories"]["items"] = _schema_of(
        MEMORY, MEMORY_OPTIONAL, evidence={"type": "array", "items": _schema_of(EVIDENCE)}
    )
    return {
        "type": "object",
        "required": ["format", "client", *LISTS, "profile"],
        "properties": {
            "format": {"type": "string", "enum": [FORMAT]},
            "exported_at": {"type": "string", "format": "date-time"},
            "tenant": {"type": "string"},
            "ids_seal": {
                "type": "string",
                "description": "Vouches for the document's ids to the tenant that exported "
                "it: imported there, the client keeps them; anywhere else it gets fresh ids.",
            },
            "client": _schema_of(CLIENT, CLIENT_OPTIONAL),
            **lists,
            "item_deletions": {"type": "array", "items": _schema_of(ITEM_DELETION)},
            "profile": _schema_of(PROFILE) | {"nullable": True},
        },
    }


def _object(value, spec: dict, path: str, errors: dict, optional: dict | None = None) -> dict:
    if not isinstance(value, dict):
        errors[path] = ["must be an object"]
        return {}
    out = {}
    for key, check in spec.items():
        if key not in value:
            errors[f"{path}.{key}"] = ["is required"]
            continue
        try:
            out[key] = check(value[key])
        except ValueError as exc:
            errors[f"{path}.{key}"] = [str(exc)]
    for key, (check, default) in (optional or {}).items():
        try:
            out[key] = check(value[key]) if key in value else default
        except ValueError as exc:
            errors[f"{path}.{key}"] = [str(exc)]
    return out


def document_parse(data) -> dict:
    """The document with its ids and times parsed; a DomainError naming every problem."""
    if not isinstance(data, dict):
        raise DomainError("The body must be a client export (a JSON object).")
    if data.get("format") != FORMAT:
        raise DomainError(
            f"Unknown export format {data.get('format')!r}: this memoryhub reads {FORMAT!r}.",
            fields={"format": [f"must be {FORMAT!r}"]},
        )
    errors: dict[str, list[str]] = {}
    doc: dict[str, Any] = {
        "client": _object(data.get("client"), CLIENT, "client", errors, CLIENT_OPTIONAL)
    }
    for name, spec in LISTS.items():
        items = data.get(name)
        if not isinstance(items, list):
            errors[name] = ["must be a list"]
            continue
        doc[name] = [
            _object(v, spec, f"{name}[{i}]", errors, OPTIONAL.get(name))
            for i, v in enumerate(items)
        ]
    deletions = data.get("item_deletions", [])
    if not isinstance(deletions, list):
        errors["item_deletions"] = ["must be a list"]
    else:
        doc["item_deletions"] = [
            _object(v, ITEM_DELETION, f"item_deletions[{i}]", errors)
            for i, v in enumerate(deletions)
        ]
    for i, memory in enumerate(doc.get("memories", [])):
        memory["evidence"] = [
            _object(v, EVIDENCE, f"memories[{i}].evidence[{j}]", errors)
            for j, v in enumerate(memory.get("evidence", []))
        ]
    if "profile" not in data:
        errors["profile"] = ["is required (null when there is none)"]
    elif data["profile"] is not None:
        doc["profile"] = _object(data["profile"], PROFILE, "profile", errors)
    if not errors:
        _references(doc, errors)
    if errors:
        message = "; ".join(f"{field}: {' '.join(m)}" for field, m in errors.items())
        raise DomainError(f"Not a valid client export: {message}", fields=errors)
    return doc


def _references(doc: dict, errors: dict) -> None:
    """Every id the document holds names one row, and every id it points to is one of
    its own."""
    for name in ("sessions", "events", "memories"):
        seen: dict = {}
        for i, row in enumerate(doc[name]):
            if row["id"] in seen:
                errors[f"{name}[{i}].id"] = [f"is also the id of {name}[{seen[row['id']]}]"]
            seen.setdefault(row["id"], i)
    sessions = {s["id"] for s in doc["sessions"]}
    events = {e["id"] for e in doc["events"]}
    memories = {m["id"] for m in doc["memories"]}
    pointers = [
        (f"events[{i}].session", e["session"], sessions) for i, e in enumerate(doc["events"])
    ]
    for i, m in enumerate(doc["memories"]):
        pointers.append((f"memories[{i}].session", m["session"], sessions))
        for j, ev in enumerate(m["evidence"]):
            pointers.append((f"memories[{i}].evidence[{j}].event", ev["event"], events))
    for i, r in enumerate(doc["relations"]):
        pointers += [(f"relations[{i}].{end}", r[end], memories) for end in ("source", "target")]
    for i, r in enumerate(doc["review_items"]):
        pointers += [(f"review_items[{i}].{k}", r[k], memories) for k in ("memory", "other_memory")]
    for field, value, known in pointers:
        if value is not None and value not in known:
            errors[field] = ["points to nothing in the document"]
