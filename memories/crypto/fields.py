"""Model fields whose values are sealed at rest for encrypted tenants.

A row is sealed under its client's data key when its tenant is encrypted (the model has
``tenant`` and ``client``). Sealing happens in ``pre_save``, the last step before the
value goes to the database (``save`` and ``bulk_create``); the instance keeps its
plaintext. Opening happens in ``from_db_value`` (querysets, ``values()``) and in the
attribute itself for instances built from raw rows (``Model.from_db`` in the read path),
so every reader of the ORM sees plaintext in memory and nothing else changes.

``QuerySet.update()`` and ``bulk_update()`` never call ``pre_save``: the models' managers
(``memories.crypto.queryset.SealedQuerySet``) seal those values per client instead.
Lookups on a sealed field (``content=…``) cannot match sealed rows.
"""

from __future__ import annotations

import json

from django.db import models
from django.db.models.query_utils import DeferredAttribute

from memories.crypto import keys, sealing, switch

JSON_MARK = "mh1"  # a sealed JSON value is stored as {"mh1": "<sealed text>"}


def _cached(instance, name):
    return instance._state.fields_cache.get(name)


def tenant_encrypted(instance) -> bool:
    """Decided at write time (``switch``): a stale tenant the instance holds is not
    trusted to say "plaintext"."""
    tenant = _cached(instance, "tenant")
    client = _cached(instance, "client")
    if tenant is None and client is not None:
        tenant = _cached(client, "tenant")
    if tenant is not None and tenant.pk == instance.tenant_id:
        return switch.encrypted_now(tenant)
    return switch.encrypted_in_db(instance.tenant_id)


def sealing_key(instance):
    """(key id, key) for ``instance``'s client if its tenant is encrypted, else None. The
    key is memoised on the client object the instance holds (one request's lifetime)."""
    if not tenant_encrypted(instance):
        return None
    client = _cached(instance, "client")
    if client is not None and "_memoryhub_key" in client.__dict__:
        return client.__dict__["_memoryhub_key"]
    found = keys.client_key(instance.client_id, instance.tenant_id)
    if client is not None:
        client.__dict__["_memoryhub_key"] = found
    return found


def label_of(field) -> str:
    return f"{field.model._meta.app_label}.{field.model._meta.model_name}.{field.name}"


class _SealedAttribute(DeferredAttribute):
    """A data descriptor, so it sees values already in the instance dict: a sealed value
    there (from a raw row) is opened on first read and kept open."""

    field: SealedTextField | SealedJSONField

    def __get__(self, instance, cls=None):
        if instance is None:
            return self
        name = self.field.attname
        if name not in instance.__dict__:
            return super().__get__(instance, cls)  # deferred: loaded through from_db_value
        value = instance.__dict__[name]
        opened = self.field.open(value)
        if opened is not value:
            instance.__dict__[name] = opened
        return opened

    def __set__(self, instance, value):
        instance.__dict__[self.field.attname] = value


class SealedTextField(models.TextField):
    descriptor_class = _SealedAttribute

    def open(self, value):
        if sealing.is_sealed(value):
            return sealing.unseal(value, label=label_of(self))
        return value

    def seal_value(self, value, key):
        if not value:
            return value
        return sealing.seal(value, key_id=key[0], key=key[1], label=label_of(self))

    def from_db_value(self, value, expression, connection):
        return self.open(value)

    def pre_save(self, model_instance, add):
        value = super().pre_save(model_instance, add)
        if not value or sealing.is_sealed(value):
            return value
        key = sealing_key(model_instance)
        return self.seal_value(value, key) if key else value


class SealedJSONField(models.JSONField):
    descriptor_class = _SealedAttribute

    def open(self, value):
        if isinstance(value, dict) and len(value) == 1 and sealing.is_sealed(value.get(JSON_MARK)):
            return json.loads(sealing.unseal(value[JSON_MARK], label=label_of(self)))
        return value

    def seal_value(self, value, key):
        if value in (None, {}, []):
            return value
        text = json.dumps(value, cls=self.encoder, sort_keys=True)
        return {JSON_MARK: sealing.seal(text, key_id=key[0], key=key[1], label=label_of(self))}

    def from_db_value(self, value, expression, connection):
        return self.open(super().from_db_value(value, expression, connection))

    def pre_save(self, model_instance, add):
        value = super().pre_save(model_instance, add)
        if value in (None, {}, []) or self.open(value) is not value:
            return value  # empty, or sealed already
        key = sealing_key(model_instance)
        return self.seal_value(value, key) if key else value
