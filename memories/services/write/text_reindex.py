"""Every memory's language detected again and its full-text vector rebuilt in it, as the
write path makes them (``memory_language``; ``search_vectors_rewrite``, beside
``search_vector_for``, one statement per batch): migration 0016, which brought languages
in, runs it; ``manage.py text_reindex`` runs it again (for an encrypted tenant the
migration could not read, for rows an older process wrote during an upgrade, or after the
detector changes).

Client by client, in batches of ``batch_size`` memories, each batch its own transaction
(its rows locked, the ADD-only door open for it alone: ``content_rewrite``), so a large
table is never locked for long and writers go on; then the client's word counts are
counted anew (``client_lexemes_recount``, one transaction), the languages among them.
Until then a client's memories are found as before: a query is always read in the
tenant's language too. A crash loses at most a batch; running it again gives the same
rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import transaction

from memories.db import content_rewrite
from memories.languages import memory_language, text_config
from memories.models import Client, Memory, Tenant
from memories.services.write.records import (
    Reindexed,
    client_lexemes_recount,
    search_vectors_rewrite,
)

# What re-indexing reads of a memory (the sealed ones open themselves).
_READ = ("id", "tenant_id", "client_id", "title", "content", "context", "speaker", "language")


def memories_text_reindex(
    *,
    tenants: Iterable[Tenant],
    batch_size: int = 500,
    progress: Callable[[Tenant, int], None] | None = None,
    tenant_language: bool = False,
) -> int:
    """Detect the language of every memory of ``tenants`` again and index it in that
    language; the number of memories done. An encrypted tenant needs the master key
    (``KeyUnavailable`` before anything of it is written otherwise).

    ``tenant_language``: index every memory in its tenant's language instead, as before
    0016 (the migration's way back; the detected languages stay)."""
    done = 0
    for tenant in tenants:
        clients = Client.objects.filter(tenant=tenant).order_by("pk").values_list("pk", flat=True)
        for client_id in list(clients):
            done += _client_reindex(tenant, client_id, batch_size, tenant_language)
            if progress:
                progress(tenant, done)
    return done


def _client_reindex(tenant: Tenant, client_id, batch_size: int, tenant_language: bool) -> int:
    done, after = 0, None
    while True:
        with transaction.atomic():
            rows = Memory.objects.filter(client_id=client_id).order_by("pk")
            if after is not None:
                rows = rows.filter(pk__gt=after)
            batch = list(rows.select_for_update(of=("self",)).only(*_READ)[:batch_size])
            if not batch:
                break
            with content_rewrite():
                search_vectors_rewrite(
                    tenant=tenant, rows=[_reindexed(row, tenant, tenant_language) for row in batch]
                )
        done, after = done + len(batch), batch[-1].pk
    if done:
        with transaction.atomic():
            client_lexemes_recount([client_id])
    return done


def _reindexed(row: Memory, tenant: Tenant, tenant_language: bool) -> Reindexed:
    text = f"{row.title} {row.content}"
    if tenant_language:
        language, config = row.language, tenant.language
    else:
        language = memory_language(text, tenant.language)
        config = text_config(language)
    return Reindexed(row.pk, language, config, text, row.speaker, row.context)
