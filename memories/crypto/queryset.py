"""``update()`` and ``bulk_update()`` for models with sealed fields.

Neither calls a field's ``pre_save``, so without this they would store a sealed field's
value as given, in clear, for an encrypted tenant. Here a plain value is sealed under each
client's own key, for the rows of encrypted tenants only (decided in SQL at write time, as
``switch`` does for ``save``); an SQL expression (``F()``, ``Concat`` …) cannot be sealed
in the database, so it is refused for a sealed field whoever the rows belong to.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from django.db import models, transaction
from django.db.models import Value

from memories.crypto import keys, switch

if TYPE_CHECKING:
    from memories.crypto.fields import SealedJSONField, SealedTextField

# bulk_update seals each object's values itself, then updates with CASE expressions.
_presealed: ContextVar[bool] = ContextVar("memoryhub_presealed", default=False)


def _sealed_fields(model) -> dict[str, SealedTextField | SealedJSONField]:
    from memories.crypto.fields import SealedJSONField, SealedTextField

    return {
        name: f
        for f in model._meta.concrete_fields
        if isinstance(f, SealedTextField | SealedJSONField)
        for name in (f.name, f.attname)
    }


def _is_sealed(field, value) -> bool:
    return field.open(value) is not value


class SealedQuerySet(models.QuerySet):
    def update(self, **kwargs):
        fields = _sealed_fields(self.model)
        sealed = {name: value for name, value in kwargs.items() if name in fields}
        if not sealed or _presealed.get():
            return super().update(**kwargs)
        for name, value in sealed.items():
            if hasattr(value, "resolve_expression"):
                raise TypeError(
                    f"{self.model._meta.label}.{name} is sealed for encrypted tenants: "
                    "update it with a plain value (sealed per client here) or save() the "
                    "rows, not with an SQL expression."
                )
        with transaction.atomic(savepoint=False):
            pairs = list(self.order_by().values_list("client_id", "tenant_id").distinct())
            # Asked of the database, under the switch's shared lock (``switch``).
            encrypted = {t for t in {t for _, t in pairs} if switch.encrypted_in_db(t)}
            plain_rows = self.exclude(tenant_id__in=encrypted)
            count = super(SealedQuerySet, plain_rows).update(**kwargs)
            for client_id, tenant_id in pairs:
                if tenant_id not in encrypted:
                    continue
                if client_id is None:
                    # A row about no client (a webhook delivery of an erasure) holds none
                    # of a client's words, and there is no client's key to seal with.
                    rows = self.filter(client_id__isnull=True, tenant_id=tenant_id)
                    count += super(SealedQuerySet, rows).update(**kwargs)
                    continue
                key = keys.client_key(client_id, tenant_id)
                values = {
                    name: value
                    if _is_sealed(fields[name], value)
                    else fields[name].seal_value(value, key)
                    for name, value in sealed.items()
                }
                rows = self.filter(client_id=client_id, tenant_id=tenant_id)
                count += super(SealedQuerySet, rows).update(**{**kwargs, **values})
        return count

    update.alters_data = True  # type: ignore[attr-defined]

    def bulk_update(self, objs, fields, batch_size=None):
        """Each object's sealed values are sealed as ``save`` would (``pre_save``) for the
        statement only; the objects keep their plaintext."""
        sealed = _sealed_fields(self.model)
        names = [sealed[name] for name in fields if name in sealed]
        if not names:
            return super().bulk_update(objs, fields, batch_size=batch_size)
        objs, kept = list(objs), []
        token = _presealed.set(True)
        try:
            # One transaction: the switch's shared lock (``switch``) holds to the write.
            with transaction.atomic(savepoint=False):
                for obj in objs:
                    for field in names:
                        plain = obj.__dict__.get(field.attname)
                        stored = field.pre_save(obj, False)
                        if stored is not plain:
                            kept.append((obj, field.attname, plain))
                            # An expression, so the attribute does not open it on the way.
                            obj.__dict__[field.attname] = Value(stored, output_field=field)
                return super().bulk_update(objs, fields, batch_size=batch_size)
        finally:
            _presealed.reset(token)
            for obj, attname, plain in kept:
                obj.__dict__[attname] = plain

    bulk_update.alters_data = True  # type: ignore[attr-defined]
