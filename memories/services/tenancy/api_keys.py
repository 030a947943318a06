"""API keys: ``mh_<prefix>_<secret>``. The prefix is stored in clear to find the key and
to show it; only the SHA-256 of the whole key is stored. Keys are 190 random bits, so a
fast hash is the right tool (a password hasher would only slow every request)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from memories.db import bound_cursor
from memories.models import ApiKey, Membership, Tenant, WebhookEndpoint
from memories.services.tenancy.audit import audit

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
    but expiry and revocation, so a caller learns nothing about other tenants' keys).

    The key comes back with its tenant, its user, the user's role in the tenant
    (``member_role``) and whether the tenant has an active webhook endpoint
    (``tenant.webhooks_active``: a write by a tenant without one reads no endpoints) from
    one hand-written statement: every API request starts here, and building the same query
    through the ORM cost several times the query itself."""
    parts = raw_key.split("_", 2)  # the secret itself may contain "_"
    if len(parts) != 3 or parts[0] != KEY_PREFIX:
        raise InvalidApiKey("Malformed API key.")
    key = _key_with_owner(parts[1])
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


def _columns(model) -> list[str]:
    return [field.column for field in model._meta.concrete_fields]


def _attnames(model) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


@functools.cache
def _key_with_owner_sql() -> str:
    user_model = get_user_model()
    select = ", ".join(
        f"{alias}.{connection.ops.quote_name(column)}"
        for alias, model in (("k", ApiKey), ("t", Tenant), ("u", user_model))
        for column in _columns(model)
    )
    return (
        f"SELECT {select}, (SELECT r.role FROM {Membership._meta.db_table} r "  # noqa: S608
        "WHERE r.tenant_id = k.tenant_id AND r.user_id = k.user_id LIMIT 1), "
        f"EXISTS (SELECT 1 FROM {WebhookEndpoint._meta.db_table} w "
        "WHERE w.tenant_id = k.tenant_id AND w.active) "
        f"FROM {ApiKey._meta.db_table} k JOIN {Tenant._meta.db_table} t ON t.id = k.tenant_id "
        f"JOIN {user_model._meta.db_table} u ON u.id = k.user_id WHERE k.prefix = %s"
    )


def _key_with_owner(prefix: str) -> ApiKey | None:
    """The key with ``prefix``, its tenant and user loaded, ``member_role`` set. (These
    models have no field that converts values read from the database, so the rows are
    usable as they come.)"""
    with bound_cursor() as cursor:
        cursor.execute(_key_with_owner_sql(), [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    models: list[Any] = []
    start = 0
    for model in (ApiKey, Tenant, get_user_model()):
        names = _attnames(model)
        models.append(model.from_db(connection.alias, names, row[start : start + len(names)]))
        start += len(names)
    key: ApiKey
    key, key.tenant, key.user = models
    key.member_role, key.tenant.webhooks_active = row[start], row[start + 1]
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
