"""Request and response examples for the OpenAPI schema, one set per operation, and the
documented error answers. Kept out of the views so they stay thin; schemathesis sends the
request examples as they are (tests/test_schemathesis.py), so they must stay valid. The
import's body schema is the service's own table of checks (one table, two uses)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from memories.api.errors import error_body
from memories.api.inputs import EventInSerializer, ItemDeleteInSerializer, MemoryListInSerializer
from memories.api.shapes import ErrorSerializer
from memories.services.client_data.document import document_schema

MEMORY_ID = "0b8f6a52-3c1e-4f55-9a7d-2f4c1e0d9b11"
OLD_ID = "5d1e2f3a-4b5c-4d6e-8f70-81a2b3c4d5e6"
EVENT_ID = "9a7c3e1f-2b4d-4c6e-8a0b-1c2d3e4f5a6b"


_ERRORS = {
    400: (
        "Invalid input: the message and fields name what to fix.",
        error_body(
            "invalid",
            "content: This field may not be blank.",
            {"content": ["This field may not be blank."]},
        ),
    ),
    401: (
        "No key, or a malformed, unknown, revoked or expired one.",
        error_body("authentication_failed", "This API key was revoked."),
    ),
    403: (
        "The key's user may see this but not do it (clients, prospects, heirs).",
        error_body("permission_denied", "This role has read-only access to memory."),
    ),
    404: (
        "Not found, or not visible to the key's user: the same answer.",
        error_body("not_found", "Client 'emma-clarke' not found."),
    ),
    413: (
        "The body is larger than MEMORYHUB_MAX_REQUEST_BYTES.",
        error_body("too_large", "The request body is larger than 5242880 bytes."),
    ),
    409: (
        "The state changed meanwhile: the review item was already decided, or its memories "
        "changed and it became obsolete (nothing was decided); or, for an import, the client "
        "or its ids already exist (nothing was imported).",
        error_body("review_closed", "This review item is already closed (Keep both)."),
    ),
    429: (
        "Too many requests for this key; Retry-After says when to try again.",
        error_body(
            "throttled",
            "Too many requests for this API key: the limit is 300 write requests per "
            "minute. Expected available in 12 seconds.",
        ),
    ),
}


def errors(*codes: int) -> dict:
    """The documented error answers for ``codes``, each with its example."""
    return {code: error(code, *_ERRORS[code]) for code in codes}


def error(status: int, description: str, body: dict) -> OpenApiResponse:
    """One documented error answer: what it means here, and an example body."""
    return OpenApiResponse(
        ErrorSerializer,
        description=description,
        examples=[OpenApiExample(f"{status}", value=body, response_only=True)],
    )


BODY_ERRORS = errors(400, 401, 403, 404, 413, 429)  # a call with a JSON body
_REUSED = (
    "external_id 'msg-1001' already names an event of client 'emma-clarke' with other "
    "content: an external_id names one event, so post new content under a new one (the same "
    "content again is a replay)."
)
# Events: an external_id posted again with other content (nothing is stored).
IDEMPOTENCY_CONFLICT = {
    409: OpenApiResponse(
        ErrorSerializer,
        description="An external_id already names an event of this client with other "
        "content: nothing was stored (the same content again replays the first answer, "
        "with Idempotent-Replayed: true). A batch names the event: events[3].external_id.",
        examples=[
            OpenApiExample(
                "409",
                value=error_body("idempotency_conflict", _REUSED, {"external_id": [_REUSED]}),
                response_only=True,
            )
        ],
    )
}
QUERY_ERRORS = errors(400, 401, 403, 404, 429)  # a GET with query parameters
ONE_MEMORY_ERRORS = errors(401, 403, 404, 429)  # a GET of one memory by id


def ok(
    serializer, description: str, example: dict, status: int = 200, *, more: dict | None = None
) -> dict:
    """The answer of ``status``, with its example (and ``more`` of them, by name)."""
    examples = [OpenApiExample(description, value=example, response_only=True)]
    examples += [
        OpenApiExample(name, value=value, response_only=True)
        for name, value in (more or {}).items()
    ]
    return {status: OpenApiResponse(serializer, description=description, examples=examples)}


def request_example(name: str, value: dict) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


MEMORY_ID_PARAMETER = OpenApiParameter(
    "memory_id",
    type=OpenApiTypes.UUID,
    location=OpenApiParameter.PATH,
    description="The memory's id (a UUID), as search, context and events answer it.",
    examples=[OpenApiExample("a memory", value=MEMORY_ID)],
)


def text_schema(field) -> dict:
    """The schema of a text parameter, from the input field that checks it: a parameter
    declared by hand (for its example) states the same limits as the field."""
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": field.max_length,
        "pattern": field.schema_pattern,
    }


CLIENT_PARAMETER = OpenApiParameter(
    "client",
    type=text_schema(MemoryListInSerializer().fields["client"]),
    location=OpenApiParameter.QUERY,
    required=True,
    description="Your reference for the client.",
    examples=[OpenApiExample("a client", value="emma-clarke")],
)

# --- bodies ---

_BRIEF = {
    "id": MEMORY_ID,
    "kind": "semantic",
    "category": "preference",
    "content": "I prefer to be contacted by email.",
    "tier": "recall",
    "status": "active",
    "confidence": 0.85,
    "importance": 0.6,
    "observed_at": "2026-11-30T09:15:00Z",
    "expires_at": None,
    "past": False,
}
_EVENT_IN = {
    "client": "emma-clarke",
    "session": "call-42",
    "source": "chat",
    "speaker": "client",
    "content": "I prefer to be contacted by email.",
    "observed_at": "2026-11-30T09:15:00Z",
    "external_id": "msg-1001",
    "metadata": {"channel": "phone"},
}
_EVENT_OUT = {"id": EVENT_ID, **_EVENT_IN, "entities": [], "item_key": ""}
INGEST_RESULT = {
    "event": _EVENT_OUT,
    "memories": [
        {**_BRIEF, "action": "updated", "related": {"id": OLD_ID, "status": "superseded"}}
    ],
}
EVENT_REQUEST = request_example("what the client said", _EVENT_IN)
BATCH_REQUEST = request_example(
    "two events of one call",
    {
        "events": [
            _EVENT_IN,
            {
                **_EVENT_IN,
                "external_id": "msg-1002",
                "content": "My daughter starts university in Bologna in September.",
            },
        ]
    },
)
BATCH_RESULT = {"results": [INGEST_RESULT]}

_HIT = {
    "id": MEMORY_ID,
    "content": "I prefer to be contacted by email.",
    "kind": "semantic",
    "category": "preference",
    "observed_at": "2026-11-30T09:15:00Z",
    "past": False,
    "speaker": "client",
    "subject": "",
    "occurred_on": None,
    "occurred_precision": "",
}
_EXPLAINED_HIT = {
    **_HIT,
    "tier": "recall",
    "status": "active",
    "score": 0.71,
    "scores": {
        "semantic": 0.82,
        "context": 0.79,
        "text": 0.64,
        "recency": 0.93,
        "confidence": 0.85,
    },
    "tags": [],
    "evidence": [
        {"event": EVENT_ID, "external_id": "msg-1001", "observed_at": "2026-11-30T09:15:00Z"}
    ],
}
SEARCH_REQUEST = request_example(
    "how to reach the client",
    {
        "client": "emma-clarke",
        "query": "How does she like to be contacted?",
        "k": 5,
        "filters": {"tier": ["core", "recall"], "kind": "semantic"},
    },
)
SEARCH_RESULT = {"results": [_HIT]}
SEARCH_EXPLAINED = {"results": [_EXPLAINED_HIT]}

CONTEXT_REQUEST = request_example(
    "before answering a message",
    {"client": "emma-clarke", "message": "Can we meet on Thursday?", "budget_chars": 1500},
)
_PROFILE = {
    "static": [
        {
            "memory": MEMORY_ID,
            "text": "I prefer to be contacted by email.",
            "kind": "semantic",
            "category": "preference",
            "confidence": 0.85,
            "observed_at": "2026-11-30T09:15:00Z",
            "disputed_by": [],
        }
    ],
    "dynamic": [],
}
CONTEXT_RESULT = {
    "core": [
        {
            "id": OLD_ID,
            "content": "Prefers meetings in the morning.",
            "kind": "semantic",
            "category": "preference",
            "disputed_by": [],
        }
    ],
    "memories": [{**_HIT, "disputed_by": []}],
    "coming_up": [
        {
            "id": EVENT_ID,
            "content": "I sign the mortgage on 12 December.",
            "kind": "episodic",
            "category": "event",
            "disputed_by": [],
            "occurred_on": "2026-12-12",
            "occurred_precision": "day",
            "expires_at": "2026-12-13T00:00:00Z",
        }
    ],
    "text": "Core memories:\n- Prefers meetings in the morning.\n\nRelevant to this message:\n"
    "- I prefer to be contacted by email.\n\nComing up:\n"
    "- 2026-12-12 · I sign the mortgage on 12 December.",
}

ITEMS = {
    "results": [
        {
            "key": '["memories","turn-1"]',
            "created_at": "2026-11-30T09:15:01Z",
            "updated_at": "2026-11-30T09:15:01Z",
            "event": {
                "id": EVENT_ID,
                "client": "emma-clarke",
                "session": None,
                "source": "chat",
                "speaker": "",
                "content": "I prefer to be contacted by email.",
                "observed_at": "2026-11-30T09:15:00Z",
                "external_id": "mhc-5b0f…",
                "metadata": {"langgraph": {"value": {"content": "I prefer email."}}},
                "entities": [],
                "item_key": '["memories","turn-1"]',
            },
        }
    ]
}
ITEM_DELETED = {"key": '["memories","turn-1"]', "forgotten": [MEMORY_ID]}

CONTEXT_EXPLAINED = {
    "profile": _PROFILE,
    **CONTEXT_RESULT,
    "memories": [{**_EXPLAINED_HIT, "disputed_by": []}],
}
CLIENT_PROFILE = {
    "client": "emma-clarke",
    "profile": _PROFILE,
    "core": CONTEXT_RESULT["core"],
}

MEMORY_DETAIL = {
    **_BRIEF,
    "client": "emma-clarke",
    "title": "",
    "tags": [],
    "created_at": "2026-11-30T09:15:01Z",
    "invalidated_at": None,
    "usage_count": 3,
    "dup_count": 1,
    "evidence_count": 2,
    "is_latest": True,
    "evidence": [
        {
            "event": EVENT_ID,
            "external_id": "msg-1001",
            "observed_at": "2026-11-30T09:15:00Z",
            "role": "extracted",
        }
    ],
    "relations": [
        {
            "type": "updates",
            "direction": "out",
            "memory": {
                "id": OLD_ID,
                "content": "I prefer to be contacted by phone.",
                "status": "superseded",
            },
        }
    ],
}
FORGOTTEN = {
    **MEMORY_DETAIL,
    "status": "deleted",
    "invalidated_at": "2026-12-01T10:00:00Z",
    "is_latest": False,
    "evidence": [],
    "relations": [],
}
FORGET_REQUEST = request_example("why it is forgotten", {"reason": "The client asked."})
FEEDBACK_REQUEST = request_example(
    "it did not help", {"useful": False, "note": "Outdated: she moved to Leeds."}
)
MEMORY_LIST = {"results": [{**MEMORY_DETAIL, "evidence": [], "relations": []}]}
CLIENT_LIST = {
    "results": [
        {
            "ref": "emma-clarke",
            "display_name": "Emma Clarke",
            "language": "en",
            "created_at": "2026-11-01T09:00:00Z",
        }
    ],
    "next_offset": None,
}
HISTORY = {
    "versions": [
        {
            **MEMORY_DETAIL,
            "id": OLD_ID,
            "content": "I prefer to be contacted by phone.",
            "status": "superseded",
            "is_latest": False,
            "invalidated_at": "2026-11-30T09:15:01Z",
            "evidence": [],
            "relations": [],
            "current": False,
        },
        {**MEMORY_DETAIL, "evidence": [], "relations": [], "current": True},
    ]
}

HEALTH = {
    "status": "ok",
    "database": {"ok": True, "engine": "postgresql", "version": "18.0", "embedded": True},
    "pgvector": {"installed": True, "version": "0.8.0"},
    "embedding_providers": [
        {
            "name": "local",
            "position": 0,
            "model": "all-MiniLM-L6-v2",
            "dimension": 384,
            "configured": True,
            "circuit": "closed",
            "detail": "",
        }
    ],
    "queue": {
        "broker": "orm",
        "sync": False,
        "failed_last_hour": 0,
        "succeeded_last_hour": 12,
        "queued": 0,
        "clusters": [],
    },
    "caller": {"user": "agent", "tenant": "demo", "role": "SUPERVISOR", "key": "3f9a1c2b"},
}
HEALTH_DOWN = {"status": "error", "caller": None}
TOOLS = {
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "recall",
                "description": "Search the client's memory for what is relevant to a question.",
                "parameters": {
                    "type": "object",
                    "properties": {"client": {"type": "string"}, "query": {"type": "string"}},
                    "required": ["client", "query"],
                    "additionalProperties": False,
                },
            },
            "x-memoryhub": {"method": "POST", "path": "/api/v1/search/", "body": "arguments"},
        }
    ]
}

# --- clients: erasure and export ---

ITEM_KEY_PARAMETER = OpenApiParameter(
    "key",
    type=text_schema(ItemDeleteInSerializer().fields["key"]),
    location=OpenApiParameter.QUERY,
    required=True,
    description="The item's key, as its events' `item_key` say it.",
    examples=[OpenApiExample("a LangGraph store's key", value='["memories","emma","turn-1"]')],
)
EXPLAIN_PARAMETER = OpenApiParameter(
    "explain",
    type=bool,
    location=OpenApiParameter.QUERY,
    required=False,
    description="true: the answer also says why each memory ranked where it did (as the "
    "body's `explain`).",
)
CLIENT_REF_PARAMETER = OpenApiParameter(
    "ref",
    # What a reference can be: as events' `client` accepts it.
    type=text_schema(EventInSerializer().fields["client"]),
    location=OpenApiParameter.PATH,
    description="Your reference for the client (as posted in events' `client`).",
    examples=[OpenApiExample("a client", value="emma-clarke")],
)
ERASED = {
    "erased": {
        "client": "emma-clarke",
        "counts": {
            "auditentry": 14,
            "datakey": 1,
            "event": 12,
            "evidence": 15,
            "memory": 9,
            "memoryembedding": 9,
            "profile": 1,
            "relation": 2,
            "reviewitem": 1,
            "session": 3,
        },
    }
}
CLIENT_EXPORT = {
    "format": "memoryhub.client-export/1",
    "exported_at": "2026-12-01T10:00:00+00:00",
    "tenant": "acme",
    "client": {
        "id": "3c9e2d1a-7b6f-4e5d-9c8b-0a1f2e3d4c5b",
        "external_ref": "emma-clarke",
        "display_name": "Emma Clarke",
        "language": "en",
        "created_at": "2026-11-01T09:00:00+00:00",
    },
    "sessions": [],
    "events": [
        {
            "id": EVENT_ID,
            "session": None,
            "source": "chat",
            "speaker": "client",
            "content": "I prefer to be contacted by email.",
            "external_id": "msg-1001",
            "observed_at": "2026-11-30T09:15:00+00:00",
            "received_at": "2026-11-30T09:15:01+00:00",
            "agent": "",
            "entities": [],
            "metadata": {},
            "item_key": "",
        }
    ],
    "memories": [
        {
            "id": MEMORY_ID,
            "session": None,
            "kind": "semantic",
            "category": "preference",
            "title": "",
            "content": "I prefer to be contacted by email.",
            "attribute": "contact_channel",
            "attribute_value": "email",
            "negated": False,
            "language": "en",
            "tier": "recall",
            "status": "active",
            "status_reason": "",
            "confidence": 0.85,
            "importance": 0.6,
            "tags": [],
            "metadata": {},
            "observed_at": "2026-11-30T09:15:00+00:00",
            "created_at": "2026-11-30T09:15:01+00:00",
            "invalidated_at": None,
            "expires_at": None,
            "past": False,
            "source_kind": "session",
            "source_ref": f"event:{EVENT_ID}",
            "evidence": [{"event": EVENT_ID, "role": "extracted", "action": "added"}],
        }
    ],
    "relations": [],
    "profile": {"static": [], "dynamic": [], "refreshed_at": "2026-11-30T09:15:02+00:00"},
    "review_items": [],
    "audit": [
        {
            "action": "memory.added",
            "object_type": "memory",
            "object_id": MEMORY_ID,
            "actor": "agent (key mh_3fa9c2)",
            "at": "2026-11-30T09:15:01+00:00",
        }
    ],
}
# The export answers this document and the import reads it back: one schema for both.
CLIENT_DOCUMENT = document_schema()
CLIENT_IMPORT_BODY = {"application/json": CLIENT_DOCUMENT}
CLIENT_IMPORT_REQUEST = request_example(
    "a client's export, as the export answered it", CLIENT_EXPORT
)
IMPORTED = {"imported": {"client": "emma-clarke", "id": "3c9e2d1a-7b6f-4e5d-9c8b-0a1f2e3d4c5b"}}
