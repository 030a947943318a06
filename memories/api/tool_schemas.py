"""OpenAI function-calling schemas for the agent tools, each mapped to an API call."""

from __future__ import annotations

from memories.models import EventSource, Kind, Status, Tier

_CLIENT = {"type": "string", "description": "Your reference for the client."}
_MEMORY_ID = {"type": "string", "description": "The memory's id (a UUID)."}


def _tool(name, description, properties, required, method, path, body=None):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
        "x-memoryhub": {"method": method, "path": path, "body": body or "arguments"},
    }


TOOLS = [
    _tool(
        "remember",
        "Store something that happened with the client (what they said, a tool result, a "
        "decision). memoryhub extracts the facts worth keeping and deduplicates them.",
        {
            "client": _CLIENT,
            "content": {"type": "string", "description": "What was said or observed."},
            "source": {"type": "string", "enum": list(EventSource.values)},
            "session": {"type": "string", "description": "The conversation's id."},
            "speaker": {"type": "string", "description": "Who said it: client, assistant…"},
        },
        ["client", "content"],
        "POST",
        "/api/v1/events/",
    ),
    _tool(
        "recall",
        "Search the client's memory for what is relevant to a question.",
        {
            "client": _CLIENT,
            "query": {"type": "string"},
            "k": {"type": "integer", "minimum": 1, "maximum": 100},
            "filters": {
                "type": "object",
                "properties": {
                    "tier": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(Tier.values)},
                    },
                    "kind": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(Kind.values)},
                    },
                    "status": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(Status.values)},
                    },
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "since": {"type": "string", "format": "date-time"},
                    "until": {"type": "string", "format": "date-time"},
                    "as_of": {"type": "string", "format": "date-time"},
                },
                "additionalProperties": False,
            },
        },
        ["client", "query"],
        "POST",
        "/api/v1/search/",
    ),
    _tool(
        "get_context",
        "Everything to put in the prompt before answering the client's message: profile, "
        "core memories, relevant memories and a ready-made text within a size budget.",
        {
            "client": _CLIENT,
            "message": {"type": "string", "description": "The client's latest message."},
            "budget_chars": {"type": "integer", "minimum": 200, "maximum": 50000},
        },
        ["client", "message"],
        "POST",
        "/api/v1/context/",
    ),
    _tool(
        "get_memory",
        "One memory with its evidence and relations.",
        {"memory_id": _MEMORY_ID},
        ["memory_id"],
        "GET",
        "/api/v1/memories/{memory_id}/",
        body="none",
    ),
    _tool(
        "list_recent",
        "The client's most recently confirmed memories.",
        {
            "client": _CLIENT,
            "limit": {"type": "integer", "minimum": 1, "maximum": 200},
            "kind": {"type": "string", "enum": list(Kind.values)},
        },
        ["client"],
        "GET",
        "/api/v1/memories/",
        body="query",
    ),
    _tool(
        "forget",
        "Remove a memory from every future answer (it stays in the audit trail).",
        {"memory_id": _MEMORY_ID, "reason": {"type": "string"}},
        ["memory_id"],
        "DELETE",
        "/api/v1/memories/{memory_id}/",
    ),
    _tool(
        "give_feedback",
        "Say whether a recalled memory was useful; unhelpful memories rank lower.",
        {"memory_id": _MEMORY_ID, "useful": {"type": "boolean"}, "note": {"type": "string"}},
        ["memory_id", "useful"],
        "POST",
        "/api/v1/memories/{memory_id}/feedback/",
    ),
]
