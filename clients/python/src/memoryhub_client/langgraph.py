"""memoryhub as a LangGraph long-term memory store (``pip install
'memoryhub-client[langgraph]'``): ``MemoryHubStore`` is a ``langgraph.store.base.BaseStore``,
so ``graph.compile(store=MemoryHubStore(hub))`` gives every node ``runtime.store``.

memoryhub is not a key-value store: what is put is something that happened, and memoryhub
decides what it teaches. So, for a namespace whose last part names the client
(``("memories", "emma-clarke")``, LangGraph's usual shape; ``client_of`` changes that):

- ``put(ns, key, value)`` records ``value`` as an event about the client (its
  ``"content"``, ``"text"``, ``"data"`` or ``"memory"`` string, else its JSON), with an
  ``external_id`` made of the namespace, the key and the value, so putting the same value
  again stores nothing; ``put(ns, key, None)`` is ``delete``.
- ``search(ns, query=...)`` is memoryhub's ranked search; without a query, the newest
  memories. Items' keys are memory ids; ``filter`` matches their values (``kind``,
  ``tier``, ``status``, ``category``…; ``$eq`` and ``$ne``), ``kind``/``tier``/``status``
  server-side.
- ``get(ns, memory_id)`` reads one memory while it is live (after ``delete``, or once
  superseded, ``None``); ``delete(ns, memory_id)`` forgets it (a key that is no memory's id
  has nothing to delete).
- An item's ``created_at`` is when memoryhub stored the memory, its ``updated_at`` the
  later of that and when the client said it (a statement imported with its past date was
  still stored now).
- ``list_namespaces`` answers a namespace per client the key may see:
  ``(*namespace_prefix, client)`` (``("memories", "emma-clarke")`` by default), matched,
  cut to ``max_depth`` and paged as LangGraph asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memoryhub_client.async_client import AsyncMemoryHub
from memoryhub_client.client import MemoryHub
from memoryhub_client.errors import NotFound
from memoryhub_client.types import Filters

_TEXT_KEYS = ("content", "text", "data", "memory")
# What memory holds now: a memory in another status is no item.
_LIVE = ("active", "candidate", "promoted")
_SERVER_FILTERS = ("kind", "tier", "status")
_VALUE_KEYS = (
    "content",
    "kind",
    "category",
    "tier",
    "status",
    "confidence",
    "importance",
    "tags",
    "speaker",
    "subject",
    "occurred_on",
)


def last_part(namespace: tuple[str, ...]) -> str:
    if not namespace:
        raise ValueError("The namespace must name the client, e.g. ('memories', 'emma-clarke').")
    return namespace[-1]


def _content(value: dict[str, Any]) -> str:
    for key in _TEXT_KEYS:
        if isinstance(value.get(key), str) and value[key].strip():
            return value[key]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _external_id(namespace: tuple[str, ...], key: str, value: dict[str, Any]) -> str:
    digest = hashlib.sha256(
        json.dumps([list(namespace), key, value], sort_keys=True, default=str).encode()
    ).hexdigest()[:32]
    return f"langgraph:{digest}"


def _is_memory_id(key: str) -> bool:
    try:
        uuid.UUID(key)
    except ValueError:
        return False
    return True


def _when(value: str | None) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else datetime.now()


def _times(memory: dict[str, Any]) -> tuple[datetime, datetime]:
    """(created_at, updated_at) of a memory's item; never updated before created."""
    created = _when(memory.get("created_at") or memory.get("observed_at"))
    said = _when(memory.get("observed_at")) if memory.get("observed_at") else created
    return created, max(created, said)


def _matches(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    for name, wanted in (conditions or {}).items():
        if isinstance(wanted, dict):
            for operator, operand in wanted.items():
                if operator == "$eq" and value.get(name) != operand:
                    return False
                if operator == "$ne" and value.get(name) == operand:
                    return False
                if operator not in ("$eq", "$ne"):
                    raise ValueError(f"MemoryHubStore filters support $eq and $ne, not {operator}.")
        elif value.get(name) != wanted:
            return False
    return True


def _server_filters(conditions: dict[str, Any] | None) -> Filters:
    """The plain equalities memoryhub can apply itself (the rest is matched on values)."""
    found = {
        name: [wanted]
        for name, wanted in (conditions or {}).items()
        if name in _SERVER_FILTERS and isinstance(wanted, str)
    }
    return cast(Filters, found)


# Clients asked for per page when listing namespaces (the API's largest page).
_CLIENTS_PAGE = 200


def _matched(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """LangGraph's prefix and suffix conditions ("*" matches any one part)."""
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    parts = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(wanted in ("*", part) for wanted, part in zip(path, parts, strict=True))


def _newest(op: SearchOp) -> dict[str, Any]:
    """``list_memories`` arguments for a search without a query."""
    conditions = _server_filters(op.filter)
    args: dict[str, Any] = {"limit": min(op.limit + op.offset, 200)}
    for name in ("kind", "tier"):
        if name in conditions:
            args[name] = conditions[name][0]
    return args


class MemoryHubStore(BaseStore):
    """A LangGraph store backed by memoryhub (see the module docstring). ``hub`` serves
    ``batch``; ``async_hub`` serves ``abatch`` (without one, ``abatch`` runs ``batch``
    in a thread)."""

    supports_ttl = False

    def __init__(
        self,
        hub: MemoryHub,
        *,
        async_hub: AsyncMemoryHub | None = None,
        client_of: Callable[[tuple[str, ...]], str] = last_part,
        session: str = "",
        namespace_prefix: tuple[str, ...] = ("memories",),
    ) -> None:
        self.hub, self.async_hub, self.client_of, self.session = hub, async_hub, client_of, session
        self.namespace_prefix = namespace_prefix

    def _namespaces(self, op: ListNamespacesOp, refs: list[str]) -> list[tuple[str, ...]]:
        """The clients' namespaces as ``op`` asks for them."""
        found = [(*self.namespace_prefix, ref) for ref in refs]
        found = [ns for ns in found if all(_matched(ns, c) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            found = list(dict.fromkeys(ns[: op.max_depth] for ns in found))
        return found[op.offset : op.offset + op.limit]

    # --- one op → one call (the answer's shape is the same whichever client runs it) ---

    @staticmethod
    def _value(memory: dict[str, Any]) -> dict[str, Any]:
        return {key: memory[key] for key in _VALUE_KEYS if key in memory}

    def _item(self, namespace: tuple[str, ...], memory: dict[str, Any]) -> Item | None:
        """The memory as the item under ``namespace``: None when it is another client's,
        or no longer live (forgotten, superseded)."""
        if memory["client"] != self.client_of(namespace) or memory.get("status") not in _LIVE:
            return None
        created, updated = _times(memory)
        return Item(
            value=self._value(memory),
            key=memory["id"],
            namespace=namespace,
            created_at=created,
            updated_at=updated,
        )

    def _search_items(self, op: SearchOp, found: list[dict[str, Any]]) -> list[SearchItem]:
        """``found`` (search hits, or the newest memories without a score) as LangGraph's
        items, filtered and paged as ``op`` asks."""
        items = [
            SearchItem(
                op.namespace_prefix,
                m["id"],
                self._value(m),
                *_times(m),
                m.get("score"),
            )
            for m in found
        ]
        kept = [i for i in items if _matches(i.value, op.filter)]
        return kept[op.offset : op.offset + op.limit]

    def _event(self, op: PutOp) -> dict[str, Any]:
        assert op.value is not None
        value = dict(op.value)
        event: dict[str, Any] = {
            "client": self.client_of(op.namespace),
            "content": _content(value),
            "external_id": _external_id(op.namespace, op.key, value),
            "metadata": {"langgraph": {"namespace": list(op.namespace), "key": op.key}},
        }
        if self.session:
            event["session"] = self.session
        return event

    # --- sync ---

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            if not _is_memory_id(op.key):
                return None
            try:
                memory = self.hub.get_memory(op.key)
            except NotFound:
                return None
            return self._item(op.namespace, dict(memory))
        if isinstance(op, SearchOp):
            client = self.client_of(op.namespace_prefix)
            wanted = op.limit + op.offset
            if op.query:
                hits = self.hub.search(
                    client,
                    op.query,
                    k=min(wanted, 100),
                    filters=_server_filters(op.filter) or None,
                    explain=True,  # an item's score, tier and status
                )
                return self._search_items(op, [dict(h) for h in hits])
            recent = self.hub.list_memories(client, **_newest(op))
            return self._search_items(op, [dict(m) for m in recent])
        if isinstance(op, PutOp):
            if op.value is None:
                self._forget(op.key)
            else:
                self.hub.add_event(**self._event(op))
            return None
        if isinstance(op, ListNamespacesOp):
            refs: list[str] = []
            offset: int | None = 0
            while offset is not None:
                page = self.hub.list_clients(limit=_CLIENTS_PAGE, offset=offset)
                refs += [client["ref"] for client in page["results"]]
                offset = page["next_offset"]
            return self._namespaces(op, refs)
        raise TypeError(f"Unknown operation {op!r}")

    def _forget(self, key: str) -> None:
        if not _is_memory_id(key):
            return
        with contextlib.suppress(NotFound):
            self.hub.forget(key, reason="deleted from a LangGraph store")

    # --- async ---

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self.async_hub is None:
            return await asyncio.to_thread(self.batch, list(ops))
        return [await self._arun(op) for op in ops]

    async def _arun(self, op: Op) -> Result:
        hub = self.async_hub
        assert hub is not None
        if isinstance(op, GetOp):
            if not _is_memory_id(op.key):
                return None
            try:
                memory = await hub.get_memory(op.key)
            except NotFound:
                return None
            return self._item(op.namespace, dict(memory))
        if isinstance(op, SearchOp):
            client = self.client_of(op.namespace_prefix)
            wanted = op.limit + op.offset
            if op.query:
                hits = await hub.search(
                    client,
                    op.query,
                    k=min(wanted, 100),
                    filters=_server_filters(op.filter) or None,
                    explain=True,  # an item's score, tier and status
                )
                return self._search_items(op, [dict(h) for h in hits])
            recent = await hub.list_memories(client, **_newest(op))
            return self._search_items(op, [dict(m) for m in recent])
        if isinstance(op, PutOp):
            if op.value is None:
                if _is_memory_id(op.key):
                    with contextlib.suppress(NotFound):
                        await hub.forget(op.key, reason="deleted from a LangGraph store")
            else:
                await hub.add_event(**self._event(op))
            return None
        if isinstance(op, ListNamespacesOp):
            refs: list[str] = []
            offset: int | None = 0
            while offset is not None:
                page = await hub.list_clients(limit=_CLIENTS_PAGE, offset=offset)
                refs += [client["ref"] for client in page["results"]]
                offset = page["next_offset"]
            return self._namespaces(op, refs)
        raise TypeError(f"Unknown operation {op!r}")
