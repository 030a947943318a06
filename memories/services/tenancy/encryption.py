"""Encrypted tenants: creating one, switching an existing one on, rotating the master key.

Sealing itself lives in ``memories.crypto``; these are the operator's actions around it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.apps import apps
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from memories.crypto import keys, switch
from memories.crypto.fields import SealedJSONField, SealedTextField
from memories.crypto.providers import KeyProvider, get_provider, require_master_key
from memories.db import content_rewrite
from memories.languages import text_config
from memories.models import (
    DataKey,
    EventEmbedding,
    LexemeCount,
    Memory,
    MemoryEmbedding,
    Tenant,
)
from memories.services.tenancy.audit import audit
from memories.services.write.records import (
    client_lexemes_recount,
    search_vector_for,
    statement_hash,
)


def tenant_create(
    *,
    slug: str,
    name: str = "",
    language: str = "english",
    encrypted: bool = False,
    vector_search_enabled: bool = True,
) -> Tenant:
    """A new tenant. Encrypted needs the master key now, not at the first write."""
    if encrypted:
        require_master_key()
    with transaction.atomic():
        tenant = Tenant.objects.create(
            slug=slug,
            name=name or slug,
            language=language,
            encrypted=encrypted,
            vector_search_enabled=vector_search_enabled,
        )
        if encrypted:
            keys.index_key(tenant.pk)
        audit(
            tenant_id=tenant.pk,
            action="tenant.create",
            object_type="tenant",
            object_id=tenant.pk,
            data={"encrypted": encrypted, "language": language},
        )
    return tenant


def tenant_vectors_drop(*, tenant: Tenant) -> int:
    """Vector search off: the tenant's vectors go, and none is made again."""
    with transaction.atomic():
        Tenant.objects.filter(pk=tenant.pk).update(vector_search_enabled=False)
        tenant.vector_search_enabled = False
        deleted, _ = MemoryEmbedding.objects.filter(tenant=tenant).delete()
        EventEmbedding.objects.filter(tenant=tenant).delete()  # the messages' too
        Memory.objects.filter(tenant=tenant, needs_embedding=True).update(needs_embedding=False)
    return deleted


def sealed_models() -> list[tuple[type[models.Model], list[SealedTextField | SealedJSONField]]]:
    """Every model with sealed fields, and those fields (they all have tenant and client)."""
    found = []
    for model in apps.get_models():
        fields = [
            f
            for f in model._meta.concrete_fields
            if isinstance(f, SealedTextField | SealedJSONField)
        ]
        if fields:
            found.append((model, fields))
    return found


def _unsealed(model, fields, tenant):
    """Rows of ``tenant`` with a field not sealed yet: the per-row resume marker."""
    q = models.Q()
    for field in fields:
        if isinstance(field, SealedTextField):
            q |= ~models.Q(**{f"{field.attname}__startswith": "mh1:"}) & ~models.Q(
                **{field.attname: ""}
            )
        else:
            q |= ~models.Q(**{f"{field.attname}__has_key": "mh1"}) & ~models.Q(
                **{f"{field.attname}__in": [{}, []]}
            )
    # A row about no client (a webhook delivery of an erasure) holds no client's words.
    return model.objects.filter(tenant=tenant, client__isnull=False).filter(q)


def tenant_encrypt(
    *,
    tenant: Tenant,
    batch_size: int = 500,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, int]:
    """Switch ``tenant`` to encrypted mode and seal what it already holds, in place.

    The flag goes first, under the switch's exclusive lock (``memories.crypto.switch``):
    it waits for every open transaction that decided to write plaintext, and every write
    after it seals, whatever ``Tenant`` instance its process holds. Then every row not yet
    sealed is rewritten (its sealed fields, and a memory's hash and search vector, which
    become the keyed hash and the blind index) through ``content_rewrite``, one batch
    per transaction, skipping rows another transaction holds; a final pass waits for
    those. A crash loses at most one batch; running it again resumes.
    """
    require_master_key()
    with transaction.atomic():
        switch.switch_lock(tenant.pk)
        switched = Tenant.objects.filter(pk=tenant.pk, encrypted=False).update(encrypted=True)
        if switched:
            audit(
                tenant_id=tenant.pk,
                action="tenant.encrypt",
                object_type="tenant",
                object_id=tenant.pk,
            )
    tenant.encrypted = True
    keys.index_key(tenant.pk)
    counts: dict[str, int] = {}
    for model, fields in sealed_models():
        label = model._meta.label_lower
        for skip_locked in (True, False):
            while done := _seal_batch(model, fields, tenant, batch_size, skip_locked):
                counts[label] = counts.get(label, 0) + done
                if progress:
                    progress(label, counts[label])
    if counts.get(Memory._meta.label_lower):
        # Sealed search vectors hold blind tokens now: count those instead of the words.
        with transaction.atomic():
            client_lexemes_recount(tenant.clients.values_list("pk", flat=True))
    return counts


def _seal_batch(model, fields, tenant, batch_size: int, skip_locked: bool) -> int:
    with transaction.atomic():
        batch = list(
            _unsealed(model, fields, tenant)
            .select_for_update(skip_locked=skip_locked, of=("self",))
            .select_related("client__tenant")
            .order_by("pk")[:batch_size]
        )
        with content_rewrite():
            for row in batch:
                _reseal(row, fields, tenant)
    return len(batch)


def _reseal(row, fields, tenant) -> None:
    row.client.tenant = tenant
    update = [f.attname for f in fields]
    if isinstance(row, Memory):
        row.content_hash = statement_hash(tenant, row.content)
        row.search_vector = search_vector_for(
            f"{row.title} {row.content}",
            text_config(row.language),  # the memory's own language, as it was indexed
            row.client_id,
            tenant=tenant,
            speaker=row.speaker,
            context=row.context,
        )
        update += ["content_hash", "search_vector"]
    row.save(update_fields=update)  # the fields seal themselves in pre_save


def sealed_tables_rewrite(*, progress: Callable[[str], None] | None = None) -> list[str]:
    """Rewrite the tables that held an encrypted tenant's words, so their files hold
    none: sealing updates rows, and PostgreSQL keeps the old versions (dead rows, stale
    index entries) in the table's files until their space is reused. ``VACUUM FULL``
    copies each table (its TOAST and indexes with it, the full-text index included) to
    new files and drops the old ones; ``ANALYZE`` replaces the statistics' sample values;
    ``pg_statistic`` is rewritten in turn (only a superuser may), then a ``CHECKPOINT``
    writes the new files out. Returns what could not be done (permissions), in words.

    Each table is locked ACCESS EXCLUSIVE while it is copied: every read and write of it,
    for every tenant, waits. It cannot run inside a transaction."""
    if connection.in_atomic_block:
        raise RuntimeError("sealed_tables_rewrite() cannot run inside a transaction")
    tables = sorted({model._meta.db_table for model, _ in sealed_models()})
    tables.append(LexemeCount._meta.db_table)
    not_done = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c WHERE c.oid = ANY(%s::regclass[]) "
            "AND NOT pg_has_role(c.relowner, 'USAGE')",
            [tables],
        )
        not_owned = {row[0] for row in cursor.fetchall()}
        cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        superuser = cursor.fetchone()[0]
        for table in tables:
            if table in not_owned and not superuser:
                not_done.append(f"{table}: not rewritten (only its owner may)")
                continue
            cursor.execute(f"VACUUM (FULL, ANALYZE) {connection.ops.quote_name(table)}")
            if progress:
                progress(table)
        if superuser:
            cursor.execute("VACUUM FULL pg_catalog.pg_statistic")
            if progress:
                progress("pg_statistic")
        else:
            not_done.append("pg_statistic: not rewritten (only a superuser may)")
        try:
            cursor.execute("CHECKPOINT")
        except DatabaseError:
            not_done.append(
                "CHECKPOINT: not run (needs a superuser or the pg_checkpoint role); the "
                "next automatic checkpoint writes the files out"
            )
    return not_done


def master_key_rotate(*, provider: KeyProvider | None = None, batch_size: int = 500) -> int:
    """Re-wrap every data and index key under the provider's current master key.

    Only the wrapping changes: key ids and every ciphertext stay as they are, so reads go
    on during the rotation (the provider still holds the old master key until the end).
    """
    provider = provider or get_provider()
    current = provider.current_version
    done = 0
    while True:
        with transaction.atomic():
            batch = list(
                DataKey.objects.exclude(master_version=current)
                .select_for_update(skip_locked=True)
                .order_by("pk")[:batch_size]
            )
            if not batch:
                break
            now = timezone.now()
            for row in batch:
                plain = provider.unwrap(row.wrapped, row.master_version)
                row.wrapped, row.master_version = provider.wrap(plain)
                row.rewrapped_at = now
            DataKey.objects.bulk_update(batch, ["wrapped", "master_version", "rewrapped_at"])
        done += len(batch)
    audit(action="keys.rotate", object_type="master_key", object_id=current, data={"keys": done})
    return done
