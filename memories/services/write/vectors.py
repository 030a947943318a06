"""The write path's vectors: each distinct statement that needs one embedded once, before
the call's transaction or, for a small call on the local model, beside it."""

from __future__ import annotations

import contextvars
import functools
import logging
import threading
from concurrent.futures import Future

from django.db import transaction

from memories.conf import setting
from memories.models import EmbeddingSpace, Event, EventEmbedding, Kind, Tenant
from memories.services.embedding import local_model, spaces
from memories.services.embedding import providers as embeddings
from memories.services.extraction import heuristic as extraction
from memories.services.write.prepare import Prepared
from memoryhub import serving

logger = logging.getLogger(__name__)


# A call with at most this many statements to embed has them embedded on a thread of its
# own while its transaction reads and writes what needs no vector (the memories it can
# collide with, its events), when the local model computes on fewer threads than there are
# cores (as it does under ``serve``: one per request): a single event's embedding, ~15 ms on
# one thread, then costs ~5 ms of wall time (docs/decisions/0019). On all the cores it would
# only compete with the transaction's own work. A bigger call embeds first, out of the
# transaction, and so does a call to a remote provider: seconds of embedding, or of a
# provider that hangs, would hold the clients' locks.
EMBEDDED_ALONGSIDE = 8


def _alongside(chain: embeddings.EmbeddingChain, texts: list[str]) -> bool:
    if len(texts) > EMBEDDED_ALONGSIDE or not chain.providers:
        return False
    local = chain.providers[0]
    if not isinstance(local, embeddings.LocalProvider):
        return False
    return local_model.get_local_embedder(local.name).threads < _cores()


@functools.cache
def _cores() -> int:
    return serving.cores()


class Embedding:
    """The vectors of a call's statements, being computed (or computed)."""

    def __init__(
        self,
        texts: list[str],
        needed,
        chain: embeddings.EmbeddingChain,
        *,
        accounts_shared: bool = False,
    ):
        self.texts, self.needed = texts, needed
        self.accounts_shared = accounts_shared
        self.future: Future[embeddings.Embedded] = Future()
        if not _alongside(chain, texts):
            self._run(chain)
            if self.future.exception() is None:  # its space, created out of the transaction
                embeddings.space_for(self.future.result())
        else:
            # On first use a space and its index are created in a transaction of their own,
            # before the call's: the CREATE INDEX locks the vectors' table (SHARE) until
            # commit, and two ingests holding it while they insert vectors deadlock.
            local = chain.providers[0]
            embeddings.space_for(
                embeddings.Embedded(local.space_provider, local.model, local.dimension, vectors=[])
            )
            # The request's context (its id, for the logs) goes with it; the thread never
            # touches the database.
            context = contextvars.copy_context()
            threading.Thread(
                target=context.run, args=(self._run, chain), name="memoryhub-embed", daemon=True
            ).start()

    def _run(self, chain: embeddings.EmbeddingChain) -> None:
        try:
            self.future.set_result(chain.embed(self.texts, accounts_shared=self.accounts_shared))
        except BaseException as exc:  # raised where the vectors are asked for
            self.future.set_exception(exc)

    def space(self, prepared: list[Prepared]) -> EmbeddingSpace | None:
        """Once computed: each statement's vector set on ``prepared``, and their space
        (None when no provider answered: the memories are kept without vectors)."""
        try:
            embedded = self.future.result()
        except embeddings.EmbeddingError as exc:
            # Kept without a vector: exact and attribute dedup still apply, a job embeds later.
            logger.warning("storing %d memories without embeddings: %s", len(self.texts), exc)
            return None
        space = embeddings.known_space(embedded.provider, embedded.model)
        if space is None:
            # A provider after the local one answered, for the first time in this database:
            # the memories wait for the reembed job, and the next call finds its space.
            logger.warning("storing %d memories without embeddings: a new space", len(self.texts))
            transaction.on_commit(lambda: embeddings.space_for(embedded))
            return None
        vector_of = dict(zip(self.texts, embedded.vectors, strict=True))
        for p in prepared:
            p.vectors = [vector_of[c.content] if self.needed(p, c) else None for c in p.candidates]
            p.message_vector = vector_of.get(p.message) if p.message else None
        return space


def embedding_started(
    tenant: Tenant, prepared: list[Prepared], *, known: set[tuple]
) -> Embedding | None:
    """Vectors for the statements that need one: each distinct text once, none for a typed
    statement a memory already says word for word (``known``: it is restated; an episode
    said again on another day is another episode, and gets its vector). And of each message
    that yields a statement, the whole message's (``Prepared.message``: search reads a
    statement in its light). In the space the tenant works in (``spaces.working_chain``)."""

    def needed(p: Prepared, c: extraction.Candidate) -> bool:
        return c.kind == Kind.EPISODIC or (p.item.client, c.content) not in known

    statements = (c.content for p in prepared for c in p.candidates if needed(p, c))
    reads_messages = setting("MESSAGE_VECTORS")
    messages = (p.message for p in prepared if reads_messages and p.message)
    texts = list(dict.fromkeys([*statements, *messages]))
    if not texts:
        return None
    return Embedding(
        texts, needed, spaces.working_chain(tenant), accounts_shared=tenant.account_numbers_shared
    )


def message_vectors_store(
    prepared: list[Prepared], events: list[Event | None], space: EmbeddingSpace | None
) -> None:
    """The vectors of the messages stored now (``events``, one per ``prepared``; None for a
    replay), in ``space``; none when ``MESSAGE_VECTORS`` is off."""
    if space is None or not setting("MESSAGE_VECTORS"):
        return
    EventEmbedding.objects.bulk_create(
        [
            EventEmbedding.of(event, space, p.vector_of_message)
            for p, event in zip(prepared, events, strict=True)
            if event is not None and p.vector_of_message is not None
        ],
        ignore_conflicts=True,
    )
