"""Master keys: who wraps and unwraps data keys.

A provider wraps a data key under its current master key and says which one (a version
string stored beside the wrapped key), and unwraps a key wrapped by any master key it
still holds. Rotation is: the new key becomes current, the old one stays readable until
``rotate_master_key`` has re-wrapped every data key, then it is removed. A KMS provider is
a class with the same three members, named by ``MEMORYHUB_KEY_PROVIDER``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from functools import lru_cache
from typing import Protocol

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

DEFAULT_PROVIDER = "memories.crypto.providers.LocalKeyProvider"
_WRAP_AAD = b"memoryhub:data-key-wrap:v1"


class KeyUnavailable(ImproperlyConfigured):
    """The master key needed for this is not configured: loud, never silent plaintext."""


class KeyProvider(Protocol):
    @property
    def current_version(self) -> str: ...

    def wrap(self, key: bytes) -> tuple[bytes, str]:
        """``key`` encrypted under the current master key, and that key's version."""

    def unwrap(self, wrapped: bytes, version: str) -> bytes:
        """The data key; ``KeyUnavailable`` if the master key ``version`` is not held."""


def _setting(name: str) -> str:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name, "")
    return value.strip() if isinstance(value, str) else value


def parse_master_key(raw: str, *, name: str = "MEMORYHUB_MASTER_KEY") -> bytes:
    """32 bytes from base64 in either alphabet: the standard one (``+/``) or the URL-safe
    one (``-_``, what ``Fernet.generate_key()`` prints), padded or not. The same bytes are
    the same key (and version) whichever way they are written."""
    text = raw.strip()
    text += "=" * (-len(text) % 4)
    try:
        # altchars maps "-_" onto "+/" before the check, so both alphabets pass it.
        key = base64.b64decode(text, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise KeyUnavailable(
            f"{name} must be 32 random bytes in base64, standard or URL-safe alphabet (e.g. "
            '`python -c "import os, base64; print(base64.b64encode(os.urandom(32)).decode())"`'
            " or `Fernet.generate_key()`)."
        )
    return key


def master_version(key: bytes) -> str:
    """A master key's public name: a fingerprint, so versions need no bookkeeping."""
    return "local:" + hashlib.sha256(b"memoryhub master key id" + key).hexdigest()[:16]


class LocalKeyProvider:
    """Master key from the environment: ``MEMORYHUB_MASTER_KEY`` (current) and, during a
    rotation, ``MEMORYHUB_MASTER_KEYS_OLD`` (comma separated) still readable."""

    def __init__(self, current: str | None = None, old: str | None = None):
        current = _setting("MEMORYHUB_MASTER_KEY") if current is None else current
        old = _setting("MEMORYHUB_MASTER_KEYS_OLD") if old is None else old
        self._current = parse_master_key(current) if current else None
        self._keys = {}
        for raw in filter(None, (part.strip() for part in (old or "").split(","))):
            key = parse_master_key(raw, name="MEMORYHUB_MASTER_KEYS_OLD")
            self._keys[master_version(key)] = key
        if self._current is not None:
            self._keys[master_version(self._current)] = self._current

    @property
    def configured(self) -> bool:
        return self._current is not None

    @property
    def current_version(self) -> str:
        if self._current is None:
            raise KeyUnavailable(
                "MEMORYHUB_MASTER_KEY is not set: encrypted tenants need a master key "
                "(32 random bytes, base64) to create or read their data keys."
            )
        return master_version(self._current)

    def wrap(self, key: bytes) -> tuple[bytes, str]:
        version = self.current_version
        assert self._current is not None  # current_version raised otherwise
        nonce = os.urandom(12)
        return nonce + AESGCM(self._current).encrypt(nonce, key, _WRAP_AAD), version

    def unwrap(self, wrapped: bytes, version: str) -> bytes:
        master = self._keys.get(version)
        if master is None:
            raise KeyUnavailable(
                f"The master key {version} that wrapped this data key is not configured "
                "(MEMORYHUB_MASTER_KEY, or MEMORYHUB_MASTER_KEYS_OLD during a rotation)."
            )
        wrapped = bytes(wrapped)
        return AESGCM(master).decrypt(wrapped[:12], wrapped[12:], _WRAP_AAD)


@lru_cache(maxsize=8)
def _build(path: str, current: str, old: str) -> KeyProvider:
    cls = import_string(path)
    if path == DEFAULT_PROVIDER or issubclass(cls, LocalKeyProvider):
        return cls(current, old)
    return cls()


def get_provider() -> KeyProvider:
    """The configured provider (rebuilt when its settings change: tests, rotation)."""
    path = _setting("MEMORYHUB_KEY_PROVIDER") or DEFAULT_PROVIDER
    return _build(
        path, _setting("MEMORYHUB_MASTER_KEY") or "", _setting("MEMORYHUB_MASTER_KEYS_OLD") or ""
    )


def require_master_key() -> None:
    """Raise ``KeyUnavailable`` unless a current master key is configured."""
    get_provider().current_version  # noqa: B018 - raises when missing
