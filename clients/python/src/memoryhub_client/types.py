"""The API's JSON, typed: what the client sends and what it gets back, as plain dicts.

Each TypedDict is one object of memoryhub's OpenAPI schema (``SCHEMA_NAMES``); a test of
memoryhub's suite checks that their keys, and which are required, are the schema's.
(No ``from __future__ import annotations`` here: TypedDict reads ``Required`` and
``NotRequired`` when the class is made, which string annotations would hide.)
"""

from typing import Any, Literal, NotRequired, Required, TypedDict

Source = Literal["chat", "tool", "observation", "decision", "import"]
Kind = Literal[
    "episodic",
    "operational",
    "semantic",
    "procedural",
    "decision",
    "principle",
    "claim",
    "artifact",
]
Tier = Literal["core", "recall", "archival"]
Status = Literal["active", "candidate", "promoted", "superseded", "merged", "expired", "deleted"]
Action = Literal["added", "deduplicated", "updated", "extended", "conflict"]
Direction = Literal["in", "out"]


class EventFields(TypedDict, total=False):
    """An event's optional fields (``add_event``'s keyword arguments)."""

    session: str
    source: Source
    speaker: str
    observed_at: str | None
    external_id: str
    metadata: dict[str, Any]
    agent: str
    project_id: str
    task_id: str
    run_id: str
    extract_from_assistant: bool
    item_key: str  # the item it is a version of (a framework store's key)


class EventIn(EventFields, total=False):
    """One event to store (``POST /api/v1/events/``, an item of a batch)."""

    client: Required[str]
    content: Required[str]


class Filters(TypedDict, total=False):
    tier: list[Tier] | Tier
    kind: list[Kind] | Kind
    status: list[Status] | Status
    tags: list[str] | str
    since: str | None
    until: str | None
    as_of: str | None
    speaker: list[str] | str
    happened_since: str | None
    happened_until: str | None


class Event(TypedDict):
    id: str
    client: str
    session: NotRequired[str | None]
    source: Source
    speaker: str
    content: str
    observed_at: str
    external_id: str
    metadata: dict[str, Any]
    entities: list[Any]
    item_key: str


class Related(TypedDict):
    id: str
    status: Status


class Outcome(TypedDict):
    """What ingesting an event did with one statement of it."""

    id: str
    kind: Kind
    category: str
    content: str
    tier: Tier
    status: Status
    confidence: float
    importance: float
    observed_at: str
    expires_at: str | None
    past: bool  # a plan or deadline whose day has gone by: still memory
    speaker: str
    subject: str
    occurred_on: str | None
    occurred_precision: str
    action: Action
    related: Related | None


class IngestResult(TypedDict):
    event: Event
    memories: list[Outcome]


class EvidenceRef(TypedDict):
    external_id: str  # the caller's own id of the event
    event: NotRequired[str]  # explain
    observed_at: NotRequired[str]  # explain


class SearchHit(TypedDict):
    """A memory as search and context answer it: its words, kind and category, who said
    it about whom, when it was said and when what it tells of happens, and its id. The
    keys marked "explain" are there only when asked with ``explain=True``."""

    id: str
    content: str
    kind: Kind
    category: str
    observed_at: str
    past: bool
    speaker: str
    subject: str
    occurred_on: str | None
    occurred_precision: str
    tier: NotRequired[Tier]  # explain
    status: NotRequired[Status]  # explain
    score: NotRequired[float]  # explain
    scores: NotRequired[dict[str, float]]  # explain: the score's components
    tags: NotRequired[list[str]]  # explain
    evidence: list[EvidenceRef]


class ProfileEntry(TypedDict):
    memory: str
    text: str
    kind: Kind
    category: str
    confidence: float
    observed_at: str
    disputed_by: list[str]  # ids of the memories it contradicts, until a person decides


class Profile(TypedDict):
    static: list[ProfileEntry]
    dynamic: list[ProfileEntry]


class CoreMemory(TypedDict):
    id: str
    content: str
    kind: Kind
    category: str
    disputed_by: list[str]


class ContextHit(SearchHit):
    disputed_by: list[str]


class ComingUp(CoreMemory):
    """What the client said will happen or must be done in the next three weeks."""

    occurred_on: str  # the day it is for (or the first of its span)
    occurred_precision: str
    expires_at: str  # when it becomes past


class Context(TypedDict):
    profile: NotRequired[Profile]  # explain (its entries are in text)
    core: list[CoreMemory]
    memories: list[ContextHit]
    coming_up: list[ComingUp]
    text: str


class ClientSummary(TypedDict):
    ref: str
    display_name: str
    language: str
    created_at: str


class ClientAdvisors(TypedDict):
    client: str
    advisors: list[str]  # usernames
    groups: list[str]  # group names


class ClientPage(TypedDict):
    results: list[ClientSummary]
    next_offset: int | None  # the next page's offset; None on the last


class ClientProfile(TypedDict):
    client: str
    profile: Profile
    core: list[CoreMemory]


class RelatedMemory(TypedDict):
    id: str
    content: str
    status: Status


class Relation(TypedDict):
    type: str
    direction: Direction
    memory: RelatedMemory


class MemoryEvidence(TypedDict):
    event: str
    external_id: str
    observed_at: str
    role: str


class Memory(TypedDict):
    id: str
    client: str
    kind: Kind
    category: str
    title: str
    content: str
    tier: Tier
    status: Status
    confidence: float
    importance: float
    tags: list[str]
    observed_at: str
    expires_at: str | None
    past: bool  # a plan or deadline whose day has gone by: still memory
    created_at: str
    invalidated_at: str | None
    usage_count: int
    dup_count: int
    evidence_count: int
    is_latest: bool
    speaker: str
    subject: str
    occurred_on: str | None
    occurred_precision: str
    evidence: list[MemoryEvidence]
    relations: list[Relation]


class MemoryVersion(Memory):
    current: bool


class ReviewItem(TypedDict):
    id: str
    type: str
    state: str
    decision: str
    reason: str
    memory: str
    other_memory: str | None
    decided_by: str | None
    decided_at: str | None


class QueueItem(TypedDict):
    """A review item as the queue lists it."""

    id: str
    type: Literal["conflict", "promotion"]
    state: str
    decision: str
    reason: str
    memory: str
    other_memory: str | None
    decided_by: str | None
    decided_at: str | None
    client: str
    score: float | None
    recommended: bool
    summary: str
    created_at: str


class QueuePage(TypedDict):
    count: int
    page: int
    pages: int
    next: int | None
    previous: int | None
    results: list[QueueItem]


class ReviewEvidence(TypedDict):
    event: str
    external_id: str
    observed_at: str
    role: str
    speaker: str
    content: str


class ReviewMemory(TypedDict):
    id: str
    client: str
    kind: Kind
    category: str
    title: str
    content: str
    tier: Tier
    status: Status
    confidence: float
    importance: float
    tags: list[str]
    observed_at: str
    expires_at: str | None
    past: bool  # a plan or deadline whose day has gone by: still memory
    created_at: str
    invalidated_at: str | None
    usage_count: int
    dup_count: int
    evidence_count: int
    is_latest: bool
    speaker: str
    subject: str
    occurred_on: str | None
    occurred_precision: str
    evidence: list[ReviewEvidence]
    relations: list[Relation]


class QueueItemDetail(QueueItem):
    """One review item with both memories in full and the score's components."""

    score_components: dict[str, float]
    memory_detail: ReviewMemory
    other_memory_detail: ReviewMemory | None


WebhookEventName = Literal[
    "memory.added", "memory.updated", "conflict.opened", "review.decided", "client.erased"
]


class Webhook(TypedDict):
    id: str
    url: str
    events: list[WebhookEventName]
    description: str
    active: bool
    created_at: str


class WebhookCreated(Webhook):
    secret: str


class Item(TypedDict):
    """What a framework's store put under one key: its newest version, as an event."""

    key: str
    created_at: str
    updated_at: str
    event: Event


class ItemDeleted(TypedDict):
    key: str
    forgotten: list[str]  # the memories only its versions taught


# TypedDict → the schema component it mirrors (memoryhub's tests compare them).
SCHEMA_NAMES: dict[type, str] = {
    EventIn: "EventInRequest",
    Filters: "FiltersRequest",
    Event: "EventOut",
    Related: "RelatedOut",
    Outcome: "Outcome",
    IngestResult: "IngestResult",
    EvidenceRef: "EvidenceOut",
    SearchHit: "SearchHit",
    ProfileEntry: "ProfileEntry",
    Profile: "ProfileOut",
    CoreMemory: "CoreOut",
    Context: "ContextOut",
    ComingUp: "ComingUp",
    ClientProfile: "ClientProfileOut",
    ClientSummary: "ClientOut",
    ClientAdvisors: "AssignmentOut",
    RelatedMemory: "RelatedMemory",
    Relation: "RelationOut",
    MemoryEvidence: "MemoryEvidence",
    Memory: "MemoryDetail",
    MemoryVersion: "MemoryVersion",
    ReviewItem: "ReviewItemOut",
    ContextHit: "ContextHit",
    QueueItem: "QueueItem",
    QueuePage: "QueueOut",
    ReviewEvidence: "ReviewEvidence",
    ReviewMemory: "ReviewMemory",
    QueueItemDetail: "QueueItemDetail",
    Webhook: "WebhookOut",
    WebhookCreated: "WebhookCreated",
    Item: "Item",
    ItemDeleted: "ItemDeleted",
}
