"""The ciphertext format, versioned: ``mh1:<key id hex>:<base64url(nonce ‖ ciphertext ‖ tag)>``.

AES-256-GCM under the client's data key; the associated data binds the ciphertext to its
format, key and field, so a value cannot be moved to another field unnoticed. The nonce
is synthetic (an HMAC of the plaintext under a key derived from the data key, as in SIV):
the same text in the same field seals to the same value, so saving a row again never
changes its stored content (the ADD-only trigger would refuse it), at the cost of showing
which rows of one client repeat a text exactly (the dedup hash shows that much anyway).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import uuid

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from memories.crypto import keys

PREFIX = "mh1:"
_SEALED = re.compile(r"mh1:([0-9a-f]{32}):([A-Za-z0-9_-]{38,})\Z")


class Unreadable(Exception):
    """A sealed value that does not open: tampered with, or sealed under another key."""


def is_sealed(value) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX) and bool(_SEALED.match(value))


def _aad(key_id: uuid.UUID, label: str) -> bytes:
    return f"{PREFIX}{key_id.hex}:{label}".encode()


def seal(text: str, *, key_id: uuid.UUID, key: bytes, label: str) -> str:
    data = text.encode()
    aad = _aad(key_id, label)
    nonce_key = hmac.new(key, b"memoryhub:nonce", hashlib.sha256).digest()
    nonce = hmac.new(nonce_key, aad + b"\0" + data, hashlib.sha256).digest()[:12]
    body = nonce + AESGCM(key).encrypt(nonce, data, aad)
    return f"{PREFIX}{key_id.hex}:{base64.urlsafe_b64encode(body).rstrip(b'=').decode()}"


def unseal(value: str, *, label: str) -> str:
    """The plaintext of a sealed value; a value that only looks sealed (its key id is no
    key at all, e.g. a plaintext tenant's text in that shape) is returned as it is."""
    match = _SEALED.match(value)
    if match is None:
        return value
    key_id = uuid.UUID(match.group(1))
    key = keys.key_by_id(key_id)
    if key is None:
        return value
    body = base64.urlsafe_b64decode(match.group(2) + "=" * (-len(match.group(2)) % 4))
    try:
        return AESGCM(key).decrypt(body[:12], body[12:], _aad(key_id, label)).decode()
    except InvalidTag as exc:
        raise Unreadable(f"a sealed {label} does not open under its key {key_id}") from exc
