"""Every API call the client makes, described once for both clients: its route, body,
whether sending it again is harmless, and the retry policy they share.

``ENDPOINTS`` names the route and OpenAPI operation of each client method; memoryhub's
tests check it against the schema (same routes, and no operation left out).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from memoryhub_client.errors import MemoryHubError, ServerError, retry_after
from memoryhub_client.types import EventIn, Filters

MAX_BATCH = 500  # the API's limit of events per batch request

# client method → (HTTP method, path, OpenAPI operationId)
ENDPOINTS: dict[str, tuple[str, str, str]] = {
    "add_event": ("POST", "/api/v1/events/", "events_create"),
    "add_events": ("POST", "/api/v1/events/batch/", "events_batch"),
    "search": ("POST", "/api/v1/search/", "search"),
    "context": ("POST", "/api/v1/context/", "context"),
    "profile": ("GET", "/api/v1/clients/{ref}/profile/", "client_profile"),
    "list_clients": ("GET", "/api/v1/clients/", "clients_list"),
    "list_memories": ("GET", "/api/v1/memories/", "memories_list"),
    "get_memory": ("GET", "/api/v1/memories/{memory_id}/", "memory_retrieve"),
    "history": ("GET", "/api/v1/memories/{memory_id}/history/", "memory_history"),
    "forget": ("DELETE", "/api/v1/memories/{memory_id}/", "memory_forget"),
    "feedback": ("POST", "/api/v1/memories/{memory_id}/feedback/", "memory_feedback"),
    "export_client": ("GET", "/api/v1/clients/{ref}/export/", "client_export"),
    "import_client": ("POST", "/api/v1/clients/", "client_import"),
    "erase_client": ("DELETE", "/api/v1/clients/{ref}/", "client_erase"),
    "set_client": ("PUT", "/api/v1/clients/{ref}/", "client_put"),
    "client_advisors": ("GET", "/api/v1/clients/{ref}/advisors/", "client_advisors"),
    "set_client_advisors": ("PUT", "/api/v1/clients/{ref}/advisors/", "client_advisors_set"),
    "review_queue": ("GET", "/api/v1/review/", "review_list"),
    "review_item": ("GET", "/api/v1/review/{item_id}/", "review_retrieve"),
    "decide_review": ("POST", "/api/v1/review/{item_id}/decide/", "review_decide"),
    "list_webhooks": ("GET", "/api/v1/webhooks/", "webhooks_list"),
    "add_webhook": ("POST", "/api/v1/webhooks/", "webhooks_create"),
    "delete_webhook": ("DELETE", "/api/v1/webhooks/{endpoint_id}/", "webhooks_delete"),
    "health": ("GET", "/api/v1/health/", "health"),
    "live": ("GET", "/api/v1/health/live", "health_live"),
    "ready": ("GET", "/api/v1/health/ready", "health_ready"),
    "tools": ("GET", "/api/v1/tools/", "tools"),
    "list_items": ("GET", "/api/v1/items/", "items_list"),
    "delete_item": ("DELETE", "/api/v1/items/", "item_delete"),
}


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    json: Any = None
    params: dict[str, Any] | None = None
    # Harmless to send again when it may have reached the server (a timeout, a 502):
    # reads, deletes, and events (each carries an external_id, so a replay stores nothing).
    idempotent: bool = True
    unwrap: str | None = None  # the answer's key that holds what the method returns


def call(name: str, *, json: Any = None, params=None, idempotent=True, unwrap=None, **path) -> Call:
    method, template, _ = ENDPOINTS[name]
    filled = {key: quote(str(value), safe="") for key, value in path.items()}
    return Call(method, template.format(**filled), json, params, idempotent, unwrap)


def with_external_id(event: EventIn) -> EventIn:
    """``event``, given an ``external_id`` (``mhc-<uuid4>``) in place when it has none:
    what makes sending it again, after a lost answer or a failed batch, store nothing."""
    if not event.get("external_id"):
        event["external_id"] = f"mhc-{uuid.uuid4()}"
    return event


def chunks(events: Iterable[EventIn], size: int = MAX_BATCH) -> list[list[EventIn]]:
    items = [with_external_id(e) for e in events]
    return [items[i : i + size] for i in range(0, len(items), size)]


def reindexed(error: MemoryHubError, *, offset: int, stored: list) -> MemoryHubError:
    """An error of the request that began at ``offset`` in the caller's list, its field
    names moved there (``events[3]`` of the third request of 500 is ``events[1003]``)."""
    import re

    def move(name: str) -> str:
        return re.sub(r"^events\[(\d+)\]", lambda m: f"events[{int(m[1]) + offset}]", name)

    error.fields = {move(name): messages for name, messages in error.fields.items()}
    error.message = re.sub(
        r"events\[(\d+)\]", lambda m: f"events[{int(m[1]) + offset}]", error.message
    )
    error.stored, error.offset = stored, offset
    return error


def search_body(client, query, k, filters: Filters | None, budget_chars, explain=False) -> dict:
    body: dict[str, Any] = {"client": client, "query": query, "k": k}
    if explain:  # sent only when asked: a server from before explain takes the call too
        body["explain"] = True
    if filters:
        body["filters"] = dict(filters)
    if budget_chars is not None:
        body["budget_chars"] = budget_chars
    return body


def without_none(**values) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


@dataclass(frozen=True)
class Retry:
    """When to send a call again, and after how long.

    A 429 was refused before anything was done, and so was a 503 that memoryhub itself gives
    (``database_unavailable``, ``database_busy``: the transaction did not happen): any call
    is sent again. Another 503 (a proxy's, say) may come after the work was done: only a
    call that is harmless to repeat is sent again. The wait is ``Retry-After`` when the
    answer says (unless that is more than ``max_retry_after`` seconds: the error is raised,
    with ``retry_after`` set), never less than the backoff (``Retry-After: 0`` is not a
    reason to hammer a server that is refusing), else an exponential backoff with jitter. A
    failed connection is sent again too; a timeout, 502 or 504 only for calls that are
    harmless to repeat. At most ``max_retries`` times.
    """

    max_retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_retry_after: float = 120.0

    def backoff_delay(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)  # noqa: S311

    def after_answer(self, attempt: int, call: Call, response: httpx.Response) -> float | None:
        """Seconds to wait before sending ``call`` again, or None to stop here."""
        if attempt >= self.max_retries:
            return None
        status = response.status_code
        if status == 429 or (status == 503 and (call.idempotent or _nothing_done(response))):
            wait = retry_after(response)
            if wait is None:
                return self.backoff_delay(attempt)
            if wait > self.max_retry_after:
                return None
            return max(wait, self.backoff_delay(attempt))
        if status in (502, 504) and call.idempotent:
            return self.backoff_delay(attempt)
        return None

    def after_failure(self, attempt: int, call: Call, error: httpx.TransportError) -> float | None:
        if attempt >= self.max_retries:
            return None
        if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or call.idempotent:
            return self.backoff_delay(attempt)
        return None


# memoryhub's own 503s: the request's transaction did not happen (the database could not be
# reached, or it lost a race and was rolled back).
_NOTHING_DONE = {"database_unavailable", "database_busy"}


def _nothing_done(response: httpx.Response) -> bool:
    try:
        return response.json()["error"]["code"] in _NOTHING_DONE
    except (ValueError, KeyError, TypeError):
        return False


def settings(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    """The server's URL and the API key: given, or ``MEMORYHUB_URL`` (default
    http://127.0.0.1:8000) and ``MEMORYHUB_API_KEY``."""
    import os

    url = (base_url or os.environ.get("MEMORYHUB_URL") or "http://127.0.0.1:8000").rstrip("/")
    key = api_key or os.environ.get("MEMORYHUB_API_KEY", "")
    if not key:
        raise ValueError("No API key: pass api_key= or set MEMORYHUB_API_KEY.")
    return url, key


def headers(api_key: str) -> dict[str, str]:
    from memoryhub_client import __version__

    return {
        "Authorization": f"Bearer {api_key}",
        "Accept": "application/json",
        "User-Agent": f"memoryhub-client/{__version__}",
    }


def result(call: Call, response: httpx.Response) -> Any:
    from memoryhub_client.errors import error_from

    if response.status_code >= 400:
        raise error_from(response)
    try:
        body = response.json() if response.content else None
    except ValueError as exc:
        kind = response.headers.get("Content-Type", "no content type")
        raise ServerError(
            f"The server answered {response.status_code} with something other than JSON "
            f"({kind}): is {response.request.url} a memoryhub API?",
            code="not_json",
            status=response.status_code,
        ) from exc
    if call.unwrap and isinstance(body, dict):
        return body[call.unwrap]
    return body
