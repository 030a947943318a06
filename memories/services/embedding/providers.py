"""Embedding providers behind one interface, in a failover chain with circuit breakers.

The chain tries providers in the configured order (``MEMORYHUB_EMBEDDING_PROVIDERS``),
skipping at once one its circuit breaker does not let through (``memories.services.breaker``:
``BREAKER_FAILURES`` failures within ``BREAKER_WINDOW`` seconds, or one timeout, open it
for ``BREAKER_COOLDOWN`` seconds; then one trial call decides while the others go on to
the next provider). Vectors of different models are not comparable: every result says which
provider and model produced it, and is stored in that model's embedding space.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from django.conf import settings
from django.db import IntegrityError, transaction

from memories.conf import setting
from memories.models import EmbeddingSpace
from memories.services.breaker import CircuitBreaker
from memories.services.secrets import accounts_masked
from memoryhub.observability import metrics

logger = logging.getLogger(__name__)


QUERY_CACHE_SIZE = 1024  # the last queries' vectors a process keeps


class EmbeddingError(Exception):
    """A provider failed (network, status, timeout, malformed answer)."""


class ProviderTimeout(EmbeddingError):
    """A provider did not answer in time (``EMBED_TIMEOUT``): its circuit opens at once."""


class AllProvidersFailed(EmbeddingError):
    pass


@dataclass(frozen=True)
class ProviderSpec:
    model: str
    dimension: int
    key_setting: str | None  # the setting that holds its API key; None: needs none
    space: str = ""  # the provider its vectors' space is named after; "": its own name


# Every provider memoryhub knows: MEMORYHUB_EMBEDDING_PROVIDERS picks its chain from these.
# Both offline models are the provider "local" in the spaces they fill, as all-MiniLM-L6-v2
# was before multilingual-e5-small replaced it: an installation's existing vectors stay in
# the space ("local", "all-MiniLM-L6-v2") they were written in.
CATALOGUE: dict[str, ProviderSpec] = {
    "local": ProviderSpec("multilingual-e5-small", 384, None),
    "local-minilm": ProviderSpec("all-MiniLM-L6-v2", 384, None, space="local"),
    "voyage": ProviderSpec("voyage-3-large", 1024, "VOYAGE_API_KEY"),
    "openai-large": ProviderSpec("text-embedding-3-large", 3072, "OPENAI_API_KEY"),
    "openai-small": ProviderSpec("text-embedding-3-small", 1536, "OPENAI_API_KEY"),
}


class Provider(Protocol):
    name: str  # its name in MEMORYHUB_EMBEDDING_PROVIDERS
    space_provider: str  # the provider its embedding space is named after
    model: str
    dimension: int
    batch_size: int
    remote: bool  # over the network (it can hang); the local model is not

    def embed(self, texts: list[str], *, input_type: str) -> list[list[float]]: ...


class LocalProvider:
    """One of the offline models (``local_model``): no key, no network."""

    batch_size = 256
    remote = False
    space_provider = "local"

    def __init__(self, name: str = "local") -> None:
        self.name = name
        self.model, self.dimension = CATALOGUE[name].model, CATALOGUE[name].dimension

    def embed(self, texts: list[str], *, input_type: str) -> list[list[float]]:
        from memories.services.embedding.local_model import get_local_embedder

        return get_local_embedder(self.name).embed(texts, input_type=input_type)


class VoyageProvider:
    name = space_provider = "voyage"
    model = CATALOGUE["voyage"].model
    dimension = CATALOGUE["voyage"].dimension
    batch_size = 128
    remote = True

    def __init__(self, *, api_key: str, base_url: str = "", timeout: float = 10.0):
        import voyageai

        self._client = voyageai.Client(
            api_key=api_key, max_retries=0, timeout=timeout, base_url=base_url or None
        )

    def embed(self, texts: list[str], *, input_type: str) -> list[list[float]]:
        import voyageai.error

        try:
            result = self._client.embed(texts, model=self.model, input_type=input_type)
        except voyageai.error.Timeout as exc:
            raise ProviderTimeout(f"voyage: {exc}") from exc
        except Exception as exc:
            raise EmbeddingError(f"voyage: {exc}") from exc
        # Integer lists come back only for an integer output_dtype, which is not asked for.
        return cast(list[list[float]], result.embeddings)


class OpenAIProvider:
    batch_size = 512
    remote = True

    def __init__(
        self,
        *,
        name: str,
        model: str,
        dimension: int,
        api_key: str,
        base_url: str = "",
        timeout: float = 10.0,
    ):
        import openai

        self.name, self.model, self.dimension = name, model, dimension
        self.space_provider = name
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=0
        )

    def embed(self, texts: list[str], *, input_type: str) -> list[list[float]]:
        import openai

        try:
            result = self._client.embeddings.create(
                model=self.model, input=texts, encoding_format="float"
            )
        except openai.APITimeoutError as exc:
            raise ProviderTimeout(f"{self.name}: {exc}") from exc
        except Exception as exc:
            raise EmbeddingError(f"{self.name}: {exc}") from exc
        return [item.embedding for item in sorted(result.data, key=lambda item: item.index)]


@dataclass(frozen=True)
class Embedded:
    provider: str
    model: str
    dimension: int
    vectors: list[list[float]]


class EmbeddingChain:
    def __init__(self, providers: Sequence[Provider], **breaker_options):
        self.providers = list(providers)
        self.breaker_options = breaker_options
        # A search's text asked again (an agent's context call repeating the message, the
        # same question for several clients) is not embedded again: the vector depends on
        # the text alone.
        self._queries: OrderedDict[str, Embedded] = OrderedDict()
        self._queries_lock = threading.Lock()
        # Space id → the chain a tenant still working in that space embeds with
        # (memories.services.embedding.spaces); a new chain (new settings) starts empty.
        self.previous: dict[int, EmbeddingChain] = {}
        self.breakers = {
            p.name: CircuitBreaker(remote=getattr(p, "remote", True), **breaker_options)
            for p in self.providers
        }

    def embed(
        self, texts: list[str], *, input_type: str = "document", accounts_shared: bool = False
    ) -> Embedded:
        """Vectors of ``texts`` from the first provider that answers. A remote provider is
        sent them with IBANs and account numbers masked unless ``accounts_shared`` (the
        tenant allows it: ``Tenant.account_numbers_shared``)."""
        if not texts:
            raise ValueError("nothing to embed")
        if input_type == "query" and len(texts) == 1:
            key = f"{int(accounts_shared)}:{texts[0]}"
            with self._queries_lock:
                cached = self._queries.get(key)
                if cached is not None:
                    self._queries.move_to_end(key)
                    return cached
            embedded = self._embed(texts, input_type, accounts_shared)
            with self._queries_lock:
                self._queries[key] = embedded
                while len(self._queries) > QUERY_CACHE_SIZE:
                    self._queries.popitem(last=False)
            return embedded
        return self._embed(texts, input_type, accounts_shared)

    def _embed(self, texts: list[str], input_type: str, accounts_shared: bool) -> Embedded:
        errors = []
        for provider in self.providers:
            breaker = self.breakers[provider.name]
            permit = breaker.acquire()
            if permit is None:
                errors.append(f"{provider.name}: circuit {breaker.state}, not waited for")
                continue
            sent = texts
            if getattr(provider, "remote", True) and not accounts_shared:
                sent = [accounts_masked(text) for text in texts]
            try:
                vectors = self._embed_all(provider, sent, input_type)
            except EmbeddingError as exc:
                breaker.release(permit, ok=False, timed_out=isinstance(exc, ProviderTimeout))
                metrics.provider_called("embedding", provider.name, ok=False, circuit=breaker.state)
                logger.warning("embedding provider %s failed: %s", provider.name, exc)
                errors.append(str(exc))
                continue
            except BaseException:
                breaker.release(permit, ok=False)
                raise
            breaker.release(permit, ok=True)
            metrics.provider_called("embedding", provider.name, ok=True, circuit=breaker.state)
            return Embedded(provider.space_provider, provider.model, provider.dimension, vectors)
        raise AllProvidersFailed("; ".join(errors) or "no embedding provider configured")

    @staticmethod
    def _embed_all(provider: Provider, texts: list[str], input_type: str) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), provider.batch_size):
            chunk = texts[start : start + provider.batch_size]
            try:
                got = provider.embed(chunk, input_type=input_type)
            except EmbeddingError:
                raise
            except Exception as exc:  # a provider bug is a failure of that provider
                raise EmbeddingError(f"{provider.name}: {exc}") from exc
            if len(got) != len(chunk) or any(len(v) != provider.dimension for v in got):
                raise EmbeddingError(
                    f"{provider.name}: answered {len(got)} vectors for {len(chunk)} texts "
                    f"or a dimension other than {provider.dimension}"
                )
            vectors.extend([float(x) for x in v] for v in got)
        return vectors

    def status(self) -> list[dict]:
        return [
            {
                "name": p.name,
                "model": p.model,
                "dimension": p.dimension,
                "circuit": self.breakers[p.name].state,
            }
            for p in self.providers
        ]


def build_provider(name: str) -> Provider | None:
    """The provider called ``name``, or None when it lacks its key."""
    timeout = float(setting("EMBED_TIMEOUT"))
    if name in {"local", "local-minilm"}:
        return LocalProvider(name)
    if name == "voyage":
        if not settings.VOYAGE_API_KEY:
            return None
        return VoyageProvider(
            api_key=settings.VOYAGE_API_KEY, base_url=settings.VOYAGE_BASE_URL, timeout=timeout
        )
    if name in {"openai-large", "openai-small"}:
        if not settings.OPENAI_API_KEY:
            return None
        return OpenAIProvider(
            name=name,
            model=CATALOGUE[name].model,
            dimension=CATALOGUE[name].dimension,
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL,
            timeout=timeout,
        )
    raise ValueError(f"unknown embedding provider {name!r}")


_chain: EmbeddingChain | None = None
_chain_lock = threading.Lock()


def get_chain() -> EmbeddingChain:
    """The process-wide chain (breakers must outlive a request to mean anything)."""
    global _chain
    with _chain_lock:
        if _chain is None:
            providers = [
                p for p in map(build_provider, settings.MEMORYHUB_EMBEDDING_PROVIDERS) if p
            ]
            _chain = EmbeddingChain(
                providers,
                failures=int(setting("BREAKER_FAILURES")),
                window=float(setting("BREAKER_WINDOW")),
                cooldown=float(setting("BREAKER_COOLDOWN")),
            )
        return _chain


def reset_chain() -> None:
    """Forget the chain, so the next call reads the settings again."""
    global _chain
    with _chain_lock:
        _chain = None
    _known_spaces.clear()


# Spaces are never deleted (vectors protect them), so a space once found stays valid for
# the life of the process: the read path does not ask the database for it every query.
_known_spaces: dict[tuple[str, str], EmbeddingSpace] = {}


def known_space(provider: str, model: str) -> EmbeddingSpace | None:
    """The existing space of ``provider``/``model``, or None; never creates one."""
    space = _known_spaces.get((provider, model))
    if space is None:
        space = EmbeddingSpace.objects.filter(provider=provider, model=model).first()
        if space is not None:
            _known_spaces[(provider, model)] = space
    return space


def space_for(embedded: Embedded) -> EmbeddingSpace:
    """The embedding space of a result, created with its HNSW index on first use."""
    space = known_space(embedded.provider, embedded.model)
    if space is not None:
        return space
    from memories.services.embedding.vector_index import embedding_space_get_or_create

    try:
        with transaction.atomic():
            return embedding_space_get_or_create(
                provider=embedded.provider, model=embedded.model, dimension=embedded.dimension
            )
    except IntegrityError:  # another process created it meanwhile
        return EmbeddingSpace.objects.get(provider=embedded.provider, model=embedded.model)
