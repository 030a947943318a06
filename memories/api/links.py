"""OpenAPI links: which answer holds the ids and references that other calls take, so a
client (or a fuzzer, tests/test_schemathesis_stateful.py) can follow one call with the
next: an event to the memories it taught, a memory to its history, the review queue to
its items' decisions. drf-spectacular has no way to declare them on a view; this
postprocessing hook adds them to the generated schema, by operationId."""

from __future__ import annotations

# What can be done with one memory, given its id.
_WITH_A_MEMORY = {
    "memory_retrieve": "The memory, with its evidence and relations.",
    "memory_history": "Every version of the memory.",
    "memory_feedback": "Say whether the memory helped.",
    "memory_forget": "Forget the memory.",
}


def _link(operation: str, description: str, **parameters: str) -> dict:
    return {
        "operationId": operation,
        "parameters": {name: f"$response.body#{pointer}" for name, pointer in parameters.items()},
        "description": description,
    }


def _memory_links(pointer: str, *only: str) -> dict:
    return {
        operation: _link(operation, description, memory_id=pointer)
        for operation, description in _WITH_A_MEMORY.items()
        if not only or operation in only
    }


# (operationId, status) → the links of that answer, by name.
LINKS: dict[tuple[str, str], dict] = {
    ("events_create", "201"): {
        **_memory_links("/memories/0/id"),
        "memories_list": _link(
            "memories_list", "The client's newest memories.", client="/event/client"
        ),
        "client_export": _link(
            "client_export", "Everything held about the client.", ref="/event/client"
        ),
        "client_profile": _link(
            "client_profile", "The client's profile and core memories.", ref="/event/client"
        ),
        "client_erase": _link("client_erase", "Erase the client.", ref="/event/client"),
    },
    ("events_batch", "201"): _memory_links("/results/0/memories/0/id", "memory_retrieve"),
    ("search", "200"): _memory_links("/results/0/id", "memory_retrieve"),
    ("context", "200"): _memory_links("/memories/0/id", "memory_retrieve"),
    ("memories_list", "200"): _memory_links("/results/0/id", "memory_retrieve"),
    ("memory_retrieve", "200"): _memory_links(
        "/id", "memory_history", "memory_feedback", "memory_forget"
    ),
    ("memory_feedback", "200"): _memory_links("/id", "memory_retrieve"),
    ("memory_forget", "200"): _memory_links("/id", "memory_retrieve"),
    ("memory_history", "200"): _memory_links("/versions/0/id", "memory_retrieve"),
    ("client_export", "200"): {
        "review_decide": _link(
            "review_decide", "Decide the client's first review item.", item_id="/review_items/0/id"
        ),
        "client_erase": _link("client_erase", "Erase the client.", ref="/client/external_ref"),
        "client_import": {
            "operationId": "client_import",
            "requestBody": "$response.body",
            "description": "Import the document again (409 while the client exists).",
        },
    },
    ("client_profile", "200"): _memory_links("/core/0/id", "memory_retrieve"),
    ("clients_list", "200"): {
        "memories_list": _link(
            "memories_list", "The first client's newest memories.", client="/results/0/ref"
        ),
        "client_profile": _link(
            "client_profile", "The first client's profile.", ref="/results/0/ref"
        ),
        "client_export": _link(
            "client_export", "Everything held about the first client.", ref="/results/0/ref"
        ),
    },
    **{
        ("client_put", status): {
            "client_advisors_set": _link(
                "client_advisors_set", "Choose who advises the client.", ref="/ref"
            ),
            "client_export": _link(
                "client_export", "Everything held about the client.", ref="/ref"
            ),
        }
        for status in ("200", "201")
    },
    ("client_advisors", "200"): {
        "client_advisors_set": _link(
            "client_advisors_set", "Choose who advises the client.", ref="/client"
        ),
    },
    ("client_advisors_set", "200"): {
        "client_advisors": _link("client_advisors", "Who advises the client.", ref="/client"),
    },
    ("review_list", "200"): {
        "review_retrieve": _link(
            "review_retrieve", "The first item, with both memories.", item_id="/results/0/id"
        ),
        "review_decide": _link("review_decide", "Decide the first item.", item_id="/results/0/id"),
    },
    ("review_retrieve", "200"): {
        "review_decide": _link("review_decide", "Decide the item.", item_id="/id"),
        "memory_retrieve": _link("memory_retrieve", "The item's memory.", memory_id="/memory"),
    },
    ("client_import", "201"): {
        "client_export": _link(
            "client_export", "Everything held about the client.", ref="/imported/client"
        ),
    },
    ("items_list", "200"): {
        "item_delete": _link(
            "item_delete",
            "Delete the first item.",
            client="/results/0/event/client",
            key="/results/0/key",
        ),
    },
    ("item_delete", "200"): _memory_links("/forgotten/0", "memory_retrieve"),
    ("webhooks_list", "200"): {
        "webhooks_delete": _link(
            "webhooks_delete", "Remove the first endpoint.", endpoint_id="/results/0/id"
        ),
    },
    ("webhooks_create", "201"): {
        "webhooks_delete": _link("webhooks_delete", "Remove the endpoint.", endpoint_id="/id"),
    },
    ("review_decide", "200"): {
        "memory_retrieve": _link(
            "memory_retrieve", "The memory the item was about.", memory_id="/memory"
        ),
        "memory_history": _link(
            "memory_history", "Its versions, as the decision left them.", memory_id="/memory"
        ),
    },
}


def add_links(result, generator, request, public):
    """drf-spectacular postprocessing hook: the links of ``LINKS``, on the answers that
    the schema documents (an answer the schema lacks is an error in the table)."""
    operations = {
        operation["operationId"]: operation
        for item in result["paths"].values()
        for operation in item.values()
    }
    for (operation_id, status), links in LINKS.items():
        unknown = {link["operationId"] for link in links.values()} - set(operations)
        if unknown:
            raise ValueError(f"The links of {operation_id} lead to no operation: {unknown}")
        operations[operation_id]["responses"][status]["links"] = links
    return result
