"""JSON that memoryhub can hold: what a JSON parser accepts but the rest of the path cannot.

Three things parse and then fail far from the input: a number too large for a double
(``1e400`` reads as infinity, which jsonb refuses), a lone UTF-16 surrogate (``"\\ud800"``:
no UTF-8 text holds it, so PostgreSQL cannot store it), and nesting deeper than Python's
recursion allows (the parser itself gives up near 1,000 levels; validators and the
database earlier). ``loads`` and ``check`` refuse them with ``Unfit``, saying where.
The API's parser (``memories.api.parsers``) and the import command use them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

# Deep enough for every document memoryhub writes (a client export nests metadata at the
# fourth level), far below where recursion gives up.
MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


class Unfit(ValueError):
    """JSON that cannot be stored; ``path`` names where (``events[3].metadata.k``), or is
    empty when the document as a whole is at fault."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path


def too_deep_message(max_depth: int = MAX_DEPTH) -> str:
    return f"The JSON is nested more than {max_depth} levels deep."


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``Unfit`` for what ``check`` refuses, and ``ValueError``
    for what is not JSON at all."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise Unfit(too_deep_message(max_depth)) from None
    check(data, max_depth=max_depth)
    return data


def check(data: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``Unfit`` for the first value that cannot be stored: nesting deeper than
    ``max_depth``, a number that is not finite, a lone surrogate in a key or a string."""
    for value, path, depth in _walk(data):
        if depth > max_depth:
            raise Unfit(too_deep_message(max_depth))
        if isinstance(value, float) and not math.isfinite(value):
            raise Unfit(
                "This number is out of range: numbers must be finite and within about ±1.8e308.",
                path,
            )
        if isinstance(value, str) and _SURROGATE.search(value):
            raise Unfit(
                "This text holds a lone UTF-16 surrogate (such as \\ud800), which is not "
                "valid Unicode.",
                path,
            )


def depth_of(data: Any) -> int:
    """How deeply ``data`` nests: 0 for a scalar, 1 for a flat object or list."""
    return max((depth for _, _, depth in _walk(data)), default=0)


def strings(data: Any) -> Iterator[str]:
    """Every key and string in ``data``, however deep (without recursion)."""
    for value, _, _ in _walk(data):
        if isinstance(value, str):
            yield value


def _walk(data: Any) -> Iterator[tuple[Any, str, int]]:
    """(value, path, depth) of every value and key, without recursion. A container's
    depth counts itself; a scalar's is its container's (0 at the top)."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            yield value, path, depth + 1
            for key, item in reversed(value.items()):
                name = f"{path}.{_printable(key)}" if path else _printable(key)
                if isinstance(key, str):
                    yield key, name, depth + 1
                stack.append((item, name, depth + 1))
        elif isinstance(value, list):
            yield value, path, depth + 1
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], f"{path}[{index}]", depth + 1))
        else:
            yield value, path, depth


def _printable(key: Any) -> str:
    """A key as a path part that any answer can carry (a lone surrogate escaped)."""
    return str(key).encode("utf-8", "backslashreplace").decode("utf-8")
