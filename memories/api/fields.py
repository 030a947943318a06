"""Input fields and serializers that refuse what DRF would coerce or ignore: unknown
fields, numbers for strings, 0 and 1 for booleans, "5" for integers. Every API input
builds on them (memories/api/schema.py states their rules in the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memories.text import blank_ranges
from memories.timebounds import EARLIEST, EARLIEST_DAY, too_early


class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


# What the schema says a non-blank string must contain (the fields trim what Python calls
# whitespace), and what content must contain once cleaned (control characters are blank
# too). Spelled out, not \s: JSON Schema's regular expressions are ECMA-262's, whose \s is
# not Python's. NUL is neither: PostgreSQL text cannot hold it, and every text field
# refuses it (DRF's CharField), so the patterns that describe a whole value exclude it.
_PY_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = f"[^\\x00{_PY_SPACE}]"
HAS_TEXT = f"[^\\x00-\\x1f\\x7f{_PY_SPACE}]"
# What content must hold: a character that shows (``memories.text.has_text``; the Basic
# Multilingual Plane's blanks spelled out, as ECMA-262 has no Unicode categories).
HAS_VISIBLE_TEXT = f"[^{blank_ranges()}]"


def whole_value(needs: str | None = None) -> str:
    """The pattern of a whole text value: no NUL anywhere and, when ``needs`` (a character
    class) is given, at least one such character."""
    if needs is None:
        return "^[^\\x00]*$"
    return f"^[^\\x00]*{needs}[^\\x00]*$"


class StrictCharField(serializers.CharField):
    """A string, not a number that happens to convert to one. ``schema_pattern`` is what
    the OpenAPI schema states about its text (memories/api/schema.py): never a NUL, and
    for a required, trimmed field more than whitespace (``pattern``, a character class,
    says what it needs instead; ``whole_pattern``, a pattern of the whole value that refuses
    NUL itself, replaces both)."""

    def __init__(self, *, pattern: str | None = None, whole_pattern: str | None = None, **kwargs):
        super().__init__(**kwargs)
        if pattern is None and not self.allow_blank and self.trim_whitespace:
            pattern = NOT_BLANK
        self.schema_pattern = whole_pattern or whole_value(pattern)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


# A client reference names the client in URL paths (``/api/v1/clients/<ref>/…``, MCP's
# ``memoryhub://clients/<ref>/…``): no slash, and not "." or "..", which clients and
# proxies resolve away before memoryhub sees the path.
CLIENT_REF_PATTERN = f"^(?!\\.\\.?$)[^\\x00/]*[^\\x00/{_PY_SPACE}][^\\x00/]*$"
CLIENT_REF_MESSAGE = (
    "A client reference cannot contain '/' nor be '.' or '..': it names the client in URLs."
)


class ClientRefField(StrictCharField):
    """A new client's reference (``CLIENT_REF_PATTERN``)."""

    def __init__(self, **kwargs):
        super().__init__(whole_pattern=CLIENT_REF_PATTERN, max_length=200, **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if "/" in value or value in {".", ".."}:
            raise serializers.ValidationError(CLIENT_REF_MESSAGE)
        return value


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false, not 0, 1 or "yes"."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, not "5" or 5.0 (query strings use IntegerField)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class OneOrManyField(serializers.ListField):
    """A list, or a single value standing for a list of one: ``{"tier": "core"}``."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            data = [data]
        return super().to_internal_value(data)


class _FromEarliest:
    """A time or day field that refuses what is before ``memories.timebounds.EARLIEST``,
    and says so in the schema (its description)."""

    earliest: str
    latest: str
    error_messages: Any  # Field's, once combined with one

    def __init__(self, **kwargs):
        said = f"From {self.earliest} to {self.latest}."
        kwargs["help_text"] = f"{kwargs['help_text']} {said}" if kwargs.get("help_text") else said
        super().__init__(**kwargs)
        self.error_messages["too_early"] = (
            f"{{value}} is before {self.earliest}, the earliest memoryhub accepts."
        )

    def to_internal_value(self, value):
        parsed = super().to_internal_value(value)  # type: ignore[misc]
        if too_early(parsed):
            self.fail("too_early", value=value)  # type: ignore[attr-defined]
        return parsed


class TimeField(_FromEarliest, serializers.DateTimeField):
    """An ISO 8601 time from 1900-01-01T00:00:00Z on (and, as Python's times go, before
    the year 10000 in UTC)."""

    earliest = EARLIEST.isoformat().replace("+00:00", "Z")
    latest = "9999-12-31T23:59:59Z (in UTC)"


class DayField(_FromEarliest, serializers.DateField):
    """An ISO 8601 day from 1900-01-01 on."""

    earliest = EARLIEST_DAY.isoformat()
    latest = "9999-12-31"
