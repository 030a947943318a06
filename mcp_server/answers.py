"""What a model reads of a tool's answer: recall and get_context as a few lines of text,
one a memory, with the id to act on (the answer itself, as the API gives it, is the tool
result's structured content beside it); the other tools' answers as their JSON.

A memory's line: ``- [<id>] (preference · contact; said 2026-03-01; planned 2026-04-02,
in 7 days) I'd like to meet in April.``: its kind and category, the day it was said (and
by whom, when not the client), the day what it tells of happens (happened, planned and
still ahead, or planned and past), disputed when a conflict about it waits for review.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from django.utils import timezone

from memories.selectors.when import AHEAD, HAPPENED, PAST, When, last_day
from memories.services.extraction.heuristic import speaker_role


def _said(observed_at: str) -> date:
    return timezone.localdate(datetime.fromisoformat(observed_at.replace("Z", "+00:00")))


def _when(memory: dict, today: date) -> When:
    # What is coming up carries no day it was said: it is a plan, its day ahead.
    said = _said(memory["observed_at"]) if memory.get("observed_at") else None
    if not memory.get("occurred_on"):
        return When(said or today, None, "", "")
    day = date.fromisoformat(memory["occurred_on"])
    precision = memory.get("occurred_precision") or "day"
    if memory.get("past"):
        return When(said or today, day, precision, PAST)
    if said is None or day > said:  # a plan or deadline: ahead until its last day is gone
        if last_day(day, precision) < today:
            return When(said or today, day, precision, PAST)
        return When(said or today, day, precision, AHEAD, max(0, (day - today).days))
    return When(said, day, precision, HAPPENED)


def _days(days: int | None) -> str:
    if not days:
        return "today"
    return "tomorrow" if days == 1 else f"in {days} days"


def memory_line(memory: dict, today: date) -> str:
    """One memory of a search or context answer, as the model reads it."""
    when = _when(memory, today)
    notes = [f"{memory['kind']} · {memory['category']}" if memory["category"] else memory["kind"]]
    speaker = memory.get("speaker") or ""
    by = f" by {speaker}" if speaker and speaker_role(speaker) != "client" else ""
    if memory.get("observed_at"):
        notes.append(f"said {when.said.isoformat()}{by}")
    if when.state == HAPPENED and when.day != when.said:
        notes.append(f"happened {when.day_text}")
    elif when.state == PAST:
        notes.append(f"planned {when.day_text}, past")
    elif when.state == AHEAD:
        notes.append(f"planned {when.day_text}, {_days(when.days_ahead)}")
    if memory.get("disputed_by"):
        notes.append("disputed")
    return f"- [{memory['id']}] ({'; '.join(notes)}) {memory['content']}"


def _recall(body: dict, today: date) -> str:
    if not body["results"]:
        return "Nothing relevant is known."
    return "\n".join(memory_line(m, today) for m in body["results"])


def _context(body: dict, today: date) -> str:
    """The prompt-ready text, then the memories it names, each with its id."""
    named = {m["id"]: m for m in body["memories"] + body["coming_up"]}
    lines = [body["text"]]
    if named:
        lines += ["", "Memories to act on (get_memory, give_feedback, forget), by id:"]
        lines += [memory_line(m, today) for m in named.values()]
    return "\n".join(lines)


_TEXTS = {"recall": _recall, "get_context": _context}

_TEXT = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "string"}}
_HIT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": _TEXT,
        "content": _TEXT,
        "kind": _TEXT,
        "category": _TEXT,
        "observed_at": _TEXT,
        "past": {"type": "boolean"},
        "speaker": _TEXT,
        "subject": _TEXT,
        "occurred_on": {"type": ["string", "null"]},
        "occurred_precision": _TEXT,
        # With explain only.
        "tier": _TEXT,
        "status": _TEXT,
        "score": {"type": "number"},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "tags": _IDS,
        "evidence": {"type": "array", "items": {"type": "object"}},
    },
    "required": [
        "id",
        "content",
        "kind",
        "category",
        "observed_at",
        "past",
        "speaker",
        "subject",
        "occurred_on",
        "occurred_precision",
    ],
}
_CONTEXT_HIT: dict[str, Any] = {
    **_HIT,
    "properties": {**_HIT["properties"], "disputed_by": _IDS},
    "required": [*_HIT["required"], "disputed_by"],
}
_MANY = {"type": "array", "items": {"type": "object"}}
# The structured content of the tools whose text is lines: the API's answer (memoryhub's
# OpenAPI schema, SearchOut and ContextOut, says the same; a test holds them together).
OUTPUT_SCHEMAS = {
    "recall": {
        "type": "object",
        "properties": {"results": {"type": "array", "items": _HIT}},
        "required": ["results"],
    },
    "get_context": {
        "type": "object",
        "properties": {
            "profile": {"type": "object"},
            "core": _MANY,
            "memories": {"type": "array", "items": _CONTEXT_HIT},
            "coming_up": _MANY,
            "text": _TEXT,
        },
        "required": ["core", "memories", "coming_up", "text"],
    },
}


def answer_text(tool: str, body, *, explained: bool = False) -> str:
    """The text content of ``tool``'s answer ``body``: its lines, or (for the other tools,
    and when the model asked to ``explain``) its JSON."""
    if tool in _TEXTS and not explained:
        return _TEXTS[tool](body, timezone.localdate())
    return json.dumps(body, ensure_ascii=False)
