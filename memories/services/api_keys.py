"""API keys: ``mh_<prefix>_<secret>``. The prefix is stored in clear to find the key and
to show it; only the SHA-256 of the whole key is stored. Keys are 190 random bits, so a
fast hash is the right tool (a password hasher would only slow every request)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from memories.models import ApiKey, Membership, Tenant
from memories.services.audit import audit

KEY_PREFIX = "mh"
LAST_USED_RESOLUTION = timedelta(minutes=1)


class InvalidApiKey(Exception):
    pass


def _digest(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


@transaction.atomic
def api_key_create(
    *, tenant: Tenant, user, name: str = "", expires_at: datetime | None = None
) -> tuple[ApiKey, str]:
    """Create a key for a member of ``tenant``; the raw key is returned once, never stored."""
    if not Membership.objects.filter(tenant=tenant, user=user).exists():
        raise ValueError(f"user {user} is not a member of tenant {tenant.slug}")
    prefix = secrets.token_hex(4)
    raw = f"{KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(24)}"
    key = ApiKey.objects.create(
        tenant=tenant,
        user=user,
        name=name,
        prefix=prefix,
        hashed_secret=_digest(raw),
        expires_at=expires_at,
    )
    audit(
        tenant_id=tenant.pk,
        actor=user,
        action="api_key.create",
        object_type="api_key",
        object_id=prefix,
    )
    return key, raw


def api_key_verify(raw_key: str) -> ApiKey:
    """The usable key matching ``raw_key``, or InvalidApiKey (one message for every cause
    but expiry and revocation, so a caller learns nothing about other tenants' keys)."""
    parts = raw_key.split("_", 2)  # the secret itself may contain "_"
    if len(parts) != 3 or parts[0] != KEY_PREFIX:
        raise InvalidApiKey("Malformed API key.")
    # The caller's role rides along: every API request asks for it next.
    role = Membership.objects.filter(tenant=OuterRef("tenant"), user=OuterRef("user"))
    key = (
        ApiKey.objects.select_related("tenant", "user")
        .annotate(member_role=Subquery(role.values("role")[:1]))
        .filter(prefix=parts[1])
        .first()
    )
    if key is None or not hmac.compare_digest(key.hashed_secret, _digest(raw_key)):
        raise InvalidApiKey("Unknown API key.")
    now = timezone.now()
    if key.revoked_at is not None:
        raise InvalidApiKey("This API key was revoked.")
    if key.expires_at is not None and key.expires_at <= now:
        raise InvalidApiKey("This API key has expired.")
    if not key.user.is_active:
        raise InvalidApiKey("The user of this API key is inactive.")
    if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
        # At most one write a minute per key, not one per request.
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key


def api_key_state(key: ApiKey, at: datetime | None = None) -> str:
    """``active``, ``revoked`` or ``expired``: what the admin and ``api_keys list`` show."""
    if key.revoked_at is not None:
        return "revoked"
    if key.expires_at is not None and key.expires_at <= (at or timezone.now()):
        return "expired"
    return "active"


@transaction.atomic
def api_key_revoke(*, key: ApiKey, actor=None, reason: str = "") -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        audit(
            tenant_id=key.tenant_id,
            actor=actor,
            action="api_key.revoke",
            object_type="api_key",
            object_id=key.prefix,
            reason=reason,
        )
    return key
