"""The agent tools: one table that both doors serve. ``GET /api/v1/tools/`` answers it as
OpenAI function-calling schemas; the MCP server (``mcp_server.server``) lists the same names,
descriptions and JSON schemas and runs each tool as the API call its ``x-memoryhub``
names. The descriptions are written for a model choosing a tool: what each returns and
when to use it (and when not)."""

from __future__ import annotations

from memories.models import EventSource, Kind, Status, Tier

_CLIENT = {
    "type": "string",
    "description": "Your reference for the client this is about (the same one every call "
    "uses, e.g. 'emma-clarke').",
}
_MEMORY_ID = {
    "type": "string",
    "format": "uuid",
    "description": "A memory's id (a UUID), as recall, get_context or list_recent gave it.",
}


_EXPLAIN = {
    "type": "boolean",
    "description": "true only to see why each memory ranked where it did (its score and "
    "components, tier, status, evidence): rarely needed to answer.",
}


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


def _list_of(values, description: str) -> dict:
    return {
        "type": "array",
        "items": {"type": "string", "enum": list(values)},
        "description": description,
    }


TOOLS = [
    _tool(
        "remember",
        "Record something that just happened with the client: what they said, a tool's "
        "result, a decision taken. Call it with each new client message or fact worth "
        "keeping, in their own words; memoryhub extracts the preferences, facts, goals and "
        "decisions, deduplicates them and notices when something changed. Returns the "
        "stored event and, per statement, what memory did with it (added, deduplicated, "
        "updated, extended or conflict). Not for questions: use recall or get_context to "
        "read.",
        {
            "client": _CLIENT,
            "content": {
                "type": "string",
                "description": "What was said or observed, verbatim (up to 65,536 characters).",
            },
            "source": {
                "type": "string",
                "enum": list(EventSource.values),
                "description": "chat (default) for conversation, tool for a tool's output, "
                "observation, decision, import.",
            },
            "session": {
                "type": "string",
                "description": "The conversation's id: turns with the same session are "
                "read together.",
            },
            "speaker": {
                "type": "string",
                "description": "Who said it: 'client' (default for chat), 'assistant', or a "
                "person's name. The assistant's own words are never stored as memories.",
            },
        },
        ["client", "content"],
        "POST",
        "/api/v1/events/",
    ),
    _tool(
        "recall",
        "Search what memoryhub knows about the client for one question or topic ('how "
        "does she want to be contacted?', 'risk tolerance'). Returns up to k memories, "
        "best first, one a line: its id, kind and category, the day it was said and the "
        "day it happens (planned, past), and its words; nothing when nothing relevant is "
        "known (do not guess then). Use it to look "
        "something up mid-task; before answering a client's message, get_context gives "
        "the profile and the relevant memories in one call.",
        {
            "client": _CLIENT,
            "query": {"type": "string", "description": "The question or topic, in words."},
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many memories at most (default 10).",
            },
            "filters": {
                "type": "object",
                "description": "Optional narrowing; leave it out to search all live memory.",
                "properties": {
                    "tier": _list_of(Tier.values, "Only these tiers."),
                    "kind": _list_of(Kind.values, "Only these kinds (e.g. decision)."),
                    "status": _list_of(
                        Status.values, "Only these statuses (superseded: what used to be true)."
                    ),
                    "tags": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Only memories with all of these tags.",
                    },
                    "since": {
                        "type": "string",
                        "format": "date-time",
                        "description": "Only what was said at or after this time.",
                    },
                    "until": {
                        "type": "string",
                        "format": "date-time",
                        "description": "Only what was said at or before this time.",
                    },
                    "as_of": {
                        "type": "string",
                        "format": "date-time",
                        "description": "What memory said at this past time.",
                    },
                },
                "additionalProperties": False,
            },
            "explain": _EXPLAIN,
        },
        ["client", "query"],
        "POST",
        "/api/v1/search/",
    ),
    _tool(
        "get_context",
        "Call first, before answering the client's latest message: returns everything to "
        "put in the prompt in one call: the client's profile (stable facts and recent "
        "activity), their core memories (always relevant), the memories most relevant to "
        "this message and what is coming up, as text ready to paste into the prompt within "
        "budget_chars characters, then the ids of the memories it names, to act on.",
        {
            "client": _CLIENT,
            "message": {
                "type": "string",
                "description": "The client's latest message: it decides which memories are "
                "relevant.",
            },
            "budget_chars": {
                "type": "integer",
                "minimum": 200,
                "maximum": 50000,
                "description": "Largest size of 'text', in characters (default 2000).",
            },
            "explain": _EXPLAIN,
        },
        ["client", "message"],
        "POST",
        "/api/v1/context/",
    ),
    _tool(
        "get_memory",
        "Read one memory in full by its id: content, kind, tier, status, the events that "
        "are its evidence and its relations to other memories (what it updates, extends or "
        "conflicts with). Use it to check where a recalled memory came from.",
        {"memory_id": _MEMORY_ID},
        ["memory_id"],
        "GET",
        "/api/v1/memories/{memory_id}/",
        body="none",
    ),
    _tool(
        "list_recent",
        "The client's most recently confirmed live memories, newest first, whatever the "
        "topic: for catching up on a client at the start of a task. To find something "
        "specific, use recall.",
        {
            "client": _CLIENT,
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 200,
                "description": "How many at most (default 20).",
            },
            "kind": {
                "type": "string",
                "enum": list(Kind.values),
                "description": "Only memories of this kind.",
            },
        },
        ["client"],
        "GET",
        "/api/v1/memories/",
        body="query",
    ),
    _tool(
        "forget",
        "Remove a memory from every future answer, when the client asks you to forget it "
        "or it is plainly wrong. It is kept in the audit trail, not erased. To record that "
        "something changed, call remember with the new fact instead: memory supersedes the "
        "old one itself. Returns the memory as it is now (status deleted).",
        {
            "memory_id": _MEMORY_ID,
            "reason": {"type": "string", "description": "Why, for the audit trail."},
        },
        ["memory_id"],
        "DELETE",
        "/api/v1/memories/{memory_id}/",
    ),
    _tool(
        "give_feedback",
        "Say whether a memory recall or get_context gave you was useful for the answer: "
        "unhelpful memories rank lower next time, useful ones higher. Returns the memory "
        "with its new confidence.",
        {
            "memory_id": _MEMORY_ID,
            "useful": {"type": "boolean", "description": "true if it helped, false if not."},
            "note": {"type": "string", "description": "Why, in a few words (optional)."},
        },
        ["memory_id", "useful"],
        "POST",
        "/api/v1/memories/{memory_id}/feedback/",
    ),
]

TOOLS_BY_NAME = {tool["function"]["name"]: tool for tool in TOOLS}
# The tools that change nothing: all a key that may not write is offered (the others would
# only answer 403), and what MCP hosts may run without asking.
READ_TOOLS = frozenset({"recall", "get_context", "get_memory", "list_recent"})


def tools_offered(*, writes: bool) -> list[dict]:
    """The tools for a key that may (``writes``) or may not write memory, in table order."""
    return [tool for tool in TOOLS if writes or tool["function"]["name"] in READ_TOOLS]
