"""SQL text that carries its parameters: fragments compose without anyone counting ``%s``,
and a statement built of them binds its values in the order its text names them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from string import Formatter


@dataclass(frozen=True)
class Sql:
    """A fragment of a statement: ``text`` with one ``%s`` per value of ``params``."""

    text: str
    params: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        if self.text.count("%s") != len(self.params):
            raise ValueError(f"{self.text.count('%s')} placeholders, {len(self.params)} values")

    def __add__(self, other: Sql) -> Sql:
        return Sql(self.text + other.text, self.params + other.params)

    def join(self, parts: Iterable[Sql]) -> Sql:
        """The parts with this separator between them, like ``str.join``."""
        if self.params:
            raise ValueError("a separator takes no parameters")
        parts = list(parts)
        return Sql(
            self.text.join(part.text for part in parts),
            tuple(value for part in parts for value in part.params),
        )


def sql(template: str, /, **values: object) -> Sql:
    """``template`` with each ``{name}`` filled in: a ``Sql`` value by its text and its
    parameters, any other value by a ``%s`` bound to it (once per mention). A parameter is
    named where it goes: the template holds no ``%s`` of its own."""
    text: list[str] = []
    params: list[object] = []
    for literal, name, spec, conversion in Formatter().parse(template):
        if "%s" in literal:
            raise ValueError(f"name the parameter instead of %s: {literal!r}")
        text.append(literal)
        if name is None:
            continue
        if spec or conversion:
            raise ValueError(f"{{{name}}} takes no format: {template!r}")
        value = values[name]
        if isinstance(value, Sql):
            text.append(value.text)
            params.extend(value.params)
        else:
            text.append("%s")
            params.append(value)
    if unused := set(values) - {name for _, name, _, _ in Formatter().parse(template)}:
        raise ValueError(f"not in the template: {sorted(unused)}")
    return Sql("".join(text), tuple(params))
