"""The API's one parser: JSON, refused with a clear 400 when it parses but cannot be held
(``memories.jsonbody``: nesting, infinite numbers, lone surrogates) rather than failing
later as a 500. Every JSON endpoint reads its body through it (``REST_FRAMEWORK``)."""

from __future__ import annotations

import codecs

from django.conf import settings
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

from memories import jsonbody


def _encoding(parser_context) -> str:
    """The body's charset (UTF-8 unless the request says otherwise), a text codec only."""
    encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
    try:
        "".encode(encoding)  # str.encode refuses codecs that are not text (base64…)
    except (LookupError, UnicodeError):
        raise exceptions.ParseError(f"Unsupported charset {encoding!r}.") from None
    return encoding


class CheckedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = _encoding(parser_context)
        try:
            text = codecs.getreader(encoding)(stream).read()
            return jsonbody.loads(text)
        except jsonbody.Unfit as exc:
            if exc.path:
                raise exceptions.ValidationError({exc.path: [exc.message]}) from None
            raise exceptions.ParseError(exc.message) from None
        except ValueError as exc:  # not JSON, or not in its encoding
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
