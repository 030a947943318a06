"""memoryhub as a LangGraph long-term memory store (``pip install
'memoryhub-client[langgraph]'``): ``MemoryHubStore`` is a ``langgraph.store.base.BaseStore``,
so ``graph.compile(store=MemoryHubStore(hub))`` gives every node ``runtime.store``.

Items are keyed by the caller's key, as in every LangGraph store, for a namespace whose last
part names the client (``("memories", "emma-clarke")``, LangGraph's usual shape;
``client_of`` changes that):

- ``put(ns, key, value)`` records ``value`` as an event about the client, a version of the
  item ``[*ns, key]`` (the event's ``item_key``): its ``"content"``, ``"text"``, ``"data"``
  or ``"memory"`` string is the event's content (secrets in it are withheld, as in any
  event), the rest of the value its metadata; a value without such a string is its JSON;
  memoryhub learns from it what it learns from any event. Putting the key again makes a new
  version (nothing is overwritten) and forgets what only the earlier ones taught;
  ``put(ns, key, None)`` is ``delete``.
- ``get(ns, key)`` answers the newest version's value (``created_at``: when the key was
  first put, ``updated_at``: its newest version), None once deleted or never put.
- ``delete(ns, key)`` deletes the item: memoryhub forgets what its versions taught.
- ``search(ns_prefix, query=...)`` is memoryhub's ranked search, each hit answered as the
  item it was learnt from (its score the hit's); without a query, the items newest first.
  ``filter`` matches the items' values (``$eq`` and ``$ne``).
- ``list_namespaces`` answers a namespace per client the key may see:
  ``(*namespace_prefix, client)`` (``("memories", "emma-clarke")`` by default), matched,
  cut to ``max_depth`` and paged as LangGraph asks.
"""

from __future__ import annotations

import asyncio
import json
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

_TEXT_KEYS = ("content", "text", "data", "memory")
_ITEMS_PAGE = 200  # the API's largest page


def last_part(namespace: tuple[str, ...]) -> str:
    if not namespace:
        raise ValueError("The namespace must name the client, e.g. ('memories', 'emma-clarke').")
    return namespace[-1]


def _text_key(value: dict[str, Any]) -> str | None:
    for key in _TEXT_KEYS:
        if isinstance(value.get(key), str) and value[key].strip():
            return key
    return None


def _stored(value: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What a put sends: the value's words as the event's content (where memoryhub
    withholds secrets before anything is stored), the rest of it in the metadata. A value
    without words is sent whole as JSON content."""
    key = _text_key(value)
    if key is None:
        return json.dumps(value, ensure_ascii=False, sort_keys=True), {"json": True}
    return value[key], {"text_key": key, "rest": {k: v for k, v in value.items() if k != key}}


def _value(content: str, put: dict[str, Any]) -> dict[str, Any]:
    """The value a put stored, from its event (secrets in its words withheld)."""
    if put.get("json"):
        try:
            return cast(dict[str, Any], json.loads(content))
        except ValueError:  # a withheld secret broke the JSON: its words, as stored
            return {"content": content}
    return {**put.get("rest", {}), put.get("text_key", "content"): content}


def item_key(namespace: tuple[str, ...], key: str) -> str:
    """The item's key in memoryhub: the namespace and the key, as a JSON list."""
    return json.dumps([*namespace, key], ensure_ascii=False, separators=(",", ":"))


def _key_prefix(namespace_prefix: tuple[str, ...]) -> str:
    """What the keys of the items under ``namespace_prefix`` start with."""
    opened = json.dumps(list(namespace_prefix), ensure_ascii=False, separators=(",", ":"))[:-1]
    return opened + ("," if namespace_prefix else "")


def _when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


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


def _item(found: dict[str, Any], score: float | None = None, search: bool = False) -> Item:
    """An item of memoryhub's ``GET /api/v1/items/`` as LangGraph's."""
    *namespace, key = json.loads(found["key"])
    event = found["event"]
    args = (tuple(namespace), key, _value(event["content"], event["metadata"].get("langgraph", {})))
    times = (_when(found["created_at"]), _when(found["updated_at"]))
    if search:
        return SearchItem(*args, *times, score)
    return Item(value=args[2], key=key, namespace=args[0], created_at=times[0], updated_at=times[1])


def _ranked(hits: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[SearchItem]:
    """The items the hits were learnt from (their newest version is a hit's evidence), in
    the hits' order, each once, with its best hit's score."""
    by_event = {item["event"]["id"]: item for item in items}
    out: dict[str, SearchItem] = {}
    for hit in hits:
        for evidence in hit.get("evidence", []):
            item = by_event.get(evidence["event"])
            if item is not None and item["key"] not in out:
                out[item["key"]] = cast(SearchItem, _item(item, hit.get("score"), search=True))
    return list(out.values())


def _evidence(hits: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(e["event"] for h in hits for e in h.get("evidence", [])))[:100]


# Clients asked for per page when listing namespaces (the API's largest page).
_CLIENTS_PAGE = 200


def _matched(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """LangGraph's prefix and suffix conditions ("*" matches any one part)."""
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    parts = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(wanted in ("*", part) for wanted, part in zip(path, parts, strict=True))


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

    def _event(self, op: PutOp) -> dict[str, Any]:
        assert op.value is not None
        content, stored = _stored(dict(op.value))
        event: dict[str, Any] = {
            "client": self.client_of(op.namespace),
            "content": content,
            "item_key": item_key(op.namespace, op.key),
            "metadata": {"langgraph": stored},
        }
        if self.session:
            event["session"] = self.session
        return event

    @staticmethod
    def _page(op: SearchOp, items: list[SearchItem]) -> list[SearchItem]:
        kept = [i for i in items if _matches(i.value, op.filter)]
        return kept[op.offset : op.offset + op.limit]

    # --- sync ---

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._answer(op) for op in ops]

    def _answer(self, op: Op) -> Result:
        """A namespace that names no client the key sees holds nothing (as LangGraph's
        stores answer an empty namespace)."""
        try:
            return self._run(op)
        except NotFound:
            if isinstance(op, PutOp) and op.value is not None:
                raise
            if isinstance(op, GetOp | PutOp):
                return None
            if isinstance(op, SearchOp):
                return []
            raise

    def _run(self, op: Op) -> Result:
        hub = self.hub
        if isinstance(op, GetOp):
            client = self.client_of(op.namespace)
            found = hub.list_items(client, key=item_key(op.namespace, op.key), limit=1)
            return _item(dict(found[0])) if found else None
        if isinstance(op, SearchOp):
            client, prefix = self.client_of(op.namespace_prefix), _key_prefix(op.namespace_prefix)
            if op.query:
                k = min(op.limit + op.offset, 100)
                hits = [dict(h) for h in hub.search(client, op.query, k=k, explain=True)]
                events = _evidence(hits)
                items = hub.list_items(client, prefix=prefix, events=events, limit=200)
                return self._page(op, _ranked(hits, [dict(i) for i in items]))
            listed: list[SearchItem] = []
            offset = 0
            while len(self._page(op, listed)) < op.limit:
                page = hub.list_items(client, prefix=prefix, limit=_ITEMS_PAGE, offset=offset)
                listed += [cast(SearchItem, _item(dict(i), search=True)) for i in page]
                if len(page) < _ITEMS_PAGE:
                    break
                offset += _ITEMS_PAGE
            return self._page(op, listed)
        if isinstance(op, PutOp):
            if op.value is None:
                hub.delete_item(self.client_of(op.namespace), item_key(op.namespace, op.key))
            else:
                hub.add_event(**self._event(op))
            return None
        if isinstance(op, ListNamespacesOp):
            refs: list[str] = []
            next_offset: int | None = 0
            while next_offset is not None:
                clients = hub.list_clients(limit=_CLIENTS_PAGE, offset=next_offset)
                refs += [client["ref"] for client in clients["results"]]
                next_offset = clients["next_offset"]
            return self._namespaces(op, refs)
        raise TypeError(f"Unknown operation {op!r}")

    # --- async ---

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self.async_hub is None:
            return await asyncio.to_thread(self.batch, list(ops))
        return [await self._aanswer(op) for op in ops]

    async def _aanswer(self, op: Op) -> Result:
        try:
            return await self._arun(op)
        except NotFound:
            if isinstance(op, PutOp) and op.value is not None:
                raise
            if isinstance(op, GetOp | PutOp):
                return None
            if isinstance(op, SearchOp):
                return []
            raise

    async def _arun(self, op: Op) -> Result:
        hub = self.async_hub
        assert hub is not None
        if isinstance(op, GetOp):
            client = self.client_of(op.namespace)
            found = await hub.list_items(client, key=item_key(op.namespace, op.key), limit=1)
            return _item(dict(found[0])) if found else None
        if isinstance(op, SearchOp):
            client, prefix = self.client_of(op.namespace_prefix), _key_prefix(op.namespace_prefix)
            if op.query:
                k = min(op.limit + op.offset, 100)
                hits = [dict(h) for h in await hub.search(client, op.query, k=k, explain=True)]
                events = _evidence(hits)
                items = await hub.list_items(client, prefix=prefix, events=events, limit=200)
                return self._page(op, _ranked(hits, [dict(i) for i in items]))
            listed: list[SearchItem] = []
            offset = 0
            while len(self._page(op, listed)) < op.limit:
                page = await hub.list_items(client, prefix=prefix, limit=_ITEMS_PAGE, offset=offset)
                listed += [cast(SearchItem, _item(dict(i), search=True)) for i in page]
                if len(page) < _ITEMS_PAGE:
                    break
                offset += _ITEMS_PAGE
            return self._page(op, listed)
        if isinstance(op, PutOp):
            if op.value is None:
                await hub.delete_item(self.client_of(op.namespace), item_key(op.namespace, op.key))
            else:
                await hub.add_event(**self._event(op))
            return None
        if isinstance(op, ListNamespacesOp):
            refs: list[str] = []
            next_offset: int | None = 0
            while next_offset is not None:
                clients = await hub.list_clients(limit=_CLIENTS_PAGE, offset=next_offset)
                refs += [client["ref"] for client in clients["results"]]
                next_offset = clients["next_offset"]
            return self._namespaces(op, refs)
        raise TypeError(f"Unknown operation {op!r}")
