"""``AsyncMemoryHub``: ``MemoryHub`` (``memoryhub_client.client``) with every call awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Unpack, cast

import httpx

from memoryhub_client import _calls as c
from memoryhub_client.errors import MemoryHubError, TransportError
from memoryhub_client.types import (
    ClientAdvisors,
    ClientPage,
    ClientProfile,
    ClientSummary,
    Context,
    EventFields,
    EventIn,
    Filters,
    IngestResult,
    Item,
    ItemDeleted,
    Kind,
    Memory,
    MemoryVersion,
    QueueItemDetail,
    QueuePage,
    ReviewItem,
    SearchHit,
    Tier,
    Webhook,
    WebhookCreated,
    WebhookEventName,
)


class AsyncMemoryHub:
    """memoryhub's agent API. ``base_url`` and ``api_key`` default to ``MEMORYHUB_URL``
    and ``MEMORYHUB_API_KEY``. Pass ``http_client`` to reuse your own ``httpx.AsyncClient``
    (its settings are kept; it is not closed). Use it as an async context manager, or
    call ``aclose()``."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        retry: c.Retry | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url, api_key = c.settings(base_url, api_key)
        self.retry = retry or c.Retry()
        self._headers = c.headers(api_key)
        self._owned = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> AsyncMemoryHub:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owned:
            await self._http.aclose()

    async def _send(self, call: c.Call) -> Any:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    call.method,
                    self.base_url + call.path,
                    json=call.json,
                    params=call.params,
                    headers=self._headers,
                )
            except httpx.TransportError as exc:
                wait = self.retry.after_failure(attempt, call, exc)
                if wait is None:
                    raise TransportError(f"{call.method} {call.path}: {exc!r}") from exc
            else:
                wait = self.retry.after_answer(attempt, call, response)
                if wait is None:
                    return c.result(call, response)
            await asyncio.sleep(wait)
            attempt += 1

    # --- events ---

    async def add_event(
        self, client: str, content: str, **fields: Unpack[EventFields]
    ) -> IngestResult:
        """Store one event; the answer says what memory did with each statement of it."""
        event = c.with_external_id(cast(EventIn, {"client": client, "content": content, **fields}))
        return cast(IngestResult, await self._send(c.call("add_event", json=event)))

    async def add_events(self, events: Iterable[EventIn]) -> list[IngestResult]:
        """Store any number of events, in requests of 500 (each all or nothing), in order.
        An event without an ``external_id`` is given one, in your dict. If a request
        fails, the error says where (``offset``; field names count in your list) and what
        the earlier requests stored (``stored``): sending the same list again replays
        those and stores only the rest."""
        results: list[IngestResult] = []
        offset = 0
        for chunk in c.chunks(events):
            try:
                answer = await self._send(
                    c.call("add_events", json={"events": chunk}, unwrap="results")
                )
            except MemoryHubError as exc:
                raise c.reindexed(exc, offset=offset, stored=results) from None
            results.extend(answer)
            offset += len(chunk)
        return results

    # --- reading ---

    async def search(
        self,
        client: str,
        query: str,
        *,
        k: int = 10,
        filters: Filters | None = None,
        budget_chars: int | None = None,
        explain: bool = False,
    ) -> list[SearchHit]:
        """The memories most relevant to ``query``, best first; ``explain=True`` adds why
        each ranked where it did (score, scores, tier, status, tags, evidence)."""
        body = c.search_body(client, query, k, filters, budget_chars, explain)
        return cast(
            list[SearchHit], await self._send(c.call("search", json=body, unwrap="results"))
        )

    async def context(
        self,
        client: str,
        message: str,
        *,
        budget_chars: int = 2000,
        k: int = 8,
        explain: bool = False,
    ) -> Context:
        """What to put in the prompt for ``message`` (``text``) and the memories in it;
        ``explain=True`` adds the profile as data and why each memory ranked."""
        body = {"client": client, "message": message, "budget_chars": budget_chars, "k": k}
        if explain:
            body["explain"] = True
        return cast(Context, await self._send(c.call("context", json=body)))

    async def profile(self, client: str) -> ClientProfile:
        return cast(ClientProfile, await self._send(c.call("profile", ref=client)))

    async def list_clients(self, *, limit: int = 50, offset: int = 0) -> ClientPage:
        """The clients this key may see, by reference, a page at a time."""
        params = {"limit": limit, "offset": offset}
        return cast(ClientPage, await self._send(c.call("list_clients", params=params)))

    async def list_memories(
        self, client: str, *, limit: int = 20, kind: Kind | None = None, tier: Tier | None = None
    ) -> list[Memory]:
        params = c.without_none(client=client, limit=limit, kind=kind, tier=tier)
        return cast(
            list[Memory], await self._send(c.call("list_memories", params=params, unwrap="results"))
        )

    async def get_memory(self, memory_id: str) -> Memory:
        return cast(Memory, await self._send(c.call("get_memory", memory_id=memory_id)))

    async def history(self, memory_id: str) -> list[MemoryVersion]:
        answer = await self._send(c.call("history", memory_id=memory_id, unwrap="versions"))
        return cast(list[MemoryVersion], answer)

    # --- items: what a framework's store put under its keys ---

    async def list_items(
        self,
        client: str,
        *,
        key: str | None = None,
        prefix: str | None = None,
        events: list[str] | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Item]:
        """The client's items, newest first: the one ``key``, those whose key starts with
        ``prefix``, or those whose newest version is one of ``events``."""
        params = c.without_none(
            client=client, key=key, prefix=prefix, event=events, limit=limit, offset=offset
        )
        answer = await self._send(c.call("list_items", params=params, unwrap="results"))
        return cast(list[Item], answer)

    async def delete_item(self, client: str, key: str) -> ItemDeleted:
        """Delete the item: the memories only its versions taught are forgotten."""
        params = {"client": client, "key": key}
        return cast(ItemDeleted, await self._send(c.call("delete_item", params=params)))

    # --- changing ---

    async def forget(self, memory_id: str, *, reason: str = "") -> Memory:
        return cast(
            Memory, await self._send(c.call("forget", json={"reason": reason}, memory_id=memory_id))
        )

    async def feedback(self, memory_id: str, *, useful: bool, note: str = "") -> Memory:
        body = {"useful": useful, "note": note}
        answer = await self._send(
            c.call("feedback", json=body, idempotent=False, memory_id=memory_id)
        )
        return cast(Memory, answer)

    async def review_queue(self, **filters: Any) -> QueuePage:
        """The open review items, a page of them (``client``, ``type``, ``kind``,
        ``min_score``, ``sort``, ``page``, ``page_size``): supervisors and admins."""
        params = c.without_none(**filters)
        return cast(QueuePage, await self._send(c.call("review_queue", params=params)))

    async def review_item(self, item_id: str) -> QueueItemDetail:
        """One review item with both memories and their evidence."""
        return cast(QueueItemDetail, await self._send(c.call("review_item", item_id=item_id)))

    async def decide_review(self, item_id: str, decision: str, *, reason: str = "") -> ReviewItem:
        body = {"decision": decision, "reason": reason}
        answer = await self._send(
            c.call("decide_review", json=body, idempotent=False, item_id=item_id)
        )
        return cast(ReviewItem, answer)

    # --- clients as a whole ---

    async def export_client(self, client: str) -> dict[str, Any]:
        return cast(dict[str, Any], await self._send(c.call("export_client", ref=client)))

    async def import_client(self, document: dict[str, Any]) -> dict[str, Any]:
        answer = await self._send(c.call("import_client", json=document, idempotent=False))
        return cast(dict[str, Any], answer)

    async def erase_client(self, client: str) -> dict[str, Any]:
        return cast(dict[str, Any], await self._send(c.call("erase_client", ref=client)))

    async def set_client(
        self, client: str, *, display_name: str | None = None, language: str | None = None
    ) -> ClientSummary:
        """Set ``client``'s name and language (None: as it is), creating the client when
        the reference is new and this key may create clients."""
        body = c.without_none(display_name=display_name, language=language)
        return cast(ClientSummary, await self._send(c.call("set_client", json=body, ref=client)))

    async def client_advisors(self, client: str) -> ClientAdvisors:
        """Who advises ``client`` (supervisors)."""
        return cast(ClientAdvisors, await self._send(c.call("client_advisors", ref=client)))

    async def set_client_advisors(
        self, client: str, advisors: list[str], *, groups: list[str] | None = None
    ) -> ClientAdvisors:
        """Make ``advisors`` (usernames) and ``groups`` exactly who advises ``client``
        (supervisors)."""
        body = {"advisors": advisors, "groups": groups or []}
        return cast(
            ClientAdvisors, await self._send(c.call("set_client_advisors", json=body, ref=client))
        )

    # --- webhooks (supervisors) ---

    async def list_webhooks(self) -> list[Webhook]:
        return cast(list[Webhook], await self._send(c.call("list_webhooks", unwrap="results")))

    async def add_webhook(
        self, url: str, events: list[WebhookEventName], *, description: str = ""
    ) -> WebhookCreated:
        """Register ``url`` for ``events``; the answer's ``secret`` signs every delivery
        (``memoryhub_client.webhooks.verify`` checks it) and is shown only here."""
        body = {"url": url, "events": events, "description": description}
        answer = await self._send(c.call("add_webhook", json=body, idempotent=False))
        return cast(WebhookCreated, answer)

    async def delete_webhook(self, endpoint_id: str) -> Webhook:
        answer = await self._send(c.call("delete_webhook", endpoint_id=endpoint_id))
        return cast(Webhook, answer)

    # --- the service ---

    async def health(self) -> dict[str, Any]:
        return cast(dict[str, Any], await self._send(c.call("health")))

    async def live(self) -> bool:
        """Whether the server answers at all (its liveness probe; no key needed)."""
        return await self._probe("live")

    async def ready(self) -> bool:
        """Whether the server can serve: its database answers (the readiness probe). Asked
        once, not retried: a 503 is the answer False."""
        return await self._probe("ready")

    async def _probe(self, name: str) -> bool:
        call = c.call(name)
        try:
            response = await self._http.request(call.method, self.base_url + call.path)
        except httpx.TransportError:
            return False
        return response.status_code == 200

    async def tools(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], await self._send(c.call("tools", unwrap="tools")))
