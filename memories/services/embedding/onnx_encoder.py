"""What the offline embedders share: an encoder on onnxruntime, mean pooling over the
attention mask, L2 normalisation (``OnnxEmbedder``); their files checked against a
manifest of sha256 sums; the thread count."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memoryhub import serving

MODEL_DIR = Path(__file__).resolve().parents[2] / "local_model"  # memories/local_model/
MANIFEST = "manifest.json"
THREADS_ENV = "MEMORYHUB_LOCAL_EMBEDDER_THREADS"
BATCH_SIZE = 64
# Attention memory grows with batch x length^2: long texts go in smaller batches (the cost per
# token hardly depends on batch size, but onnxruntime keeps its peak memory for good).
MAX_BATCH_TOKENS = 4096
# A call of at least this many texts (a batch of events, embedded before its transaction
# opens) runs over every core the process may use, whatever the embedder's own threads:
# ``serve`` gives a request one, which would leave the other cores idle while an agent posts
# a conversation (measured: bench/ingest_real.py, docs/decisions/0046). A search's query and a
# single event stay on their one thread.
SPREAD_FROM = 16


class LocalModelError(RuntimeError):
    """The local model's files are missing, altered or do not describe this model."""


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _threads_from_env() -> int:
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return os.cpu_count() or 1
    try:
        threads = int(raw)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ValueError(f"{THREADS_ENV} must be a positive integer, not {raw!r}")
    return threads


def _release_freed_memory() -> None:
    """Folding the int8 weights to fp32 frees ~150 MB of intermediates, which glibc would
    otherwise keep mapped in every process that embeds."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to release
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class OnnxEmbedder:
    """An encoder on onnxruntime with mean pooling and L2 normalisation: what the offline
    models share. A subclass says how its files are checked and loaded (``_open``) and how
    a text becomes token ids and the session's inputs (``_tokens``, ``_feeds``)."""

    provider = "local"
    model = ""
    dimension = 384
    default_dir: Path = MODEL_DIR

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else self.default_dir
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self._threads = threads
        self._runtime: Any = None
        self._pid = 0
        self._lock = threading.Lock()

    def load(self) -> None:
        """Verify and load the model now rather than on the first ``embed``."""
        self._load()

    @property
    def threads(self) -> int:
        """The threads one ``embed`` computes on."""
        return self._threads or _threads_from_env()

    def workers(self, texts: int) -> int:
        """The threads a call of ``texts`` texts computes on (``SPREAD_FROM``)."""
        if texts >= SPREAD_FROM:
            return max(self.threads, serving.cores())
        return self.threads

    def embed(self, texts: list[str], *, input_type: str = "document") -> list[list[float]]:
        """Unit vectors of ``texts``; ``input_type`` is ``query`` for a search's text,
        ``document`` for what is stored (models trained with prefixes use them)."""
        if not texts:
            return []
        runtime = self._load()
        tokens = self._tokens(runtime, list(texts), input_type)
        vectors = np.empty((len(tokens), self.dimension), dtype=np.float32)
        batches: list[list[int]] = [[]]
        # Shortest first, so similar lengths share a batch and the newest member is the longest.
        for i in sorted(range(len(tokens)), key=lambda i: len(tokens[i])):
            batch = batches[-1]
            padded = (len(batch) + 1) * len(tokens[i])
            if batch and (len(batch) == self.batch_size or padded > self.max_batch_tokens):
                batches.append(batch := [])
            batch.append(i)
        workers = self.workers(len(texts))
        # A session on one thread: the one kept for this, or the embedder's own on one.
        serial = getattr(runtime, "serial", None) or (
            runtime.session if self.threads == 1 else None
        )
        if serial is not None and workers > 1 and len(batches) > 1:
            # One batch per core at a time, each on one thread: a small product does not
            # split well over threads (measured: bench/local_embedder.py).
            with ThreadPoolExecutor(workers, thread_name_prefix="memoryhub-embed") as pool:
                done = pool.map(
                    lambda b: self._run(runtime, [tokens[j] for j in b], serial), batches
                )
                for batch, result in zip(batches, done, strict=True):
                    vectors[batch] = result
        else:
            for batch in batches:
                vectors[batch] = self._run(runtime, [tokens[j] for j in batch])
        return self._finish(runtime, vectors, input_type, texts).tolist()

    def _run(self, runtime: Any, tokens: list[list[int]], session: Any = None) -> np.ndarray:
        width = max(len(t) for t in tokens)
        ids = np.full((len(tokens), width), self._pad_id(runtime), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, row_ids in enumerate(tokens):
            ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1
        feeds = self._feeds(runtime, ids, mask)
        (hidden,) = (session or runtime.session).run(["last_hidden_state"], feeds)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def _load(self) -> Any:
        # A forked worker must not reuse its parent's session: onnxruntime's thread pools do
        # not survive fork.
        runtime = self._runtime
        if runtime is not None and self._pid == os.getpid():
            return runtime
        with self._lock:
            if self._runtime is None or self._pid != os.getpid():
                self._runtime, self._pid = self._open(), os.getpid()
            return self._runtime

    def _session(self, path: Path, threads: int | None = None) -> Any:
        # Imported here so that importing this module stays cheap for processes that never embed.
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or self.threads
        options.inter_op_num_threads = 1
        # Measured: no slower here, and a batch of long texts no longer pins ~300 MB for good.
        options.enable_cpu_mem_arena = False
        # Constant folding also turns weights stored small back into what the kernels take,
        # once, here.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        _release_freed_memory()
        return session

    def _verified_manifest(self, expected: dict) -> dict:
        """The manifest, checked to describe this model, with every file it lists present and
        matching its sha256."""
        path = self.model_dir / MANIFEST
        if not path.is_file():
            raise LocalModelError(
                f"local embedding model: {path} is missing; restore {self.model_dir} "
                "from the repository or rebuild it with the tool its manifest names"
            )
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            files: dict[str, str] = dict(manifest["files"])
            needed = {manifest[key] for key in ("model", "tokenizer") if key in manifest}
            int(manifest["max_seq_length"])
        except (ValueError, KeyError, TypeError) as exc:
            raise LocalModelError(f"local embedding model: {path} is not a valid manifest") from exc
        expected = {"dimension": self.dimension, "pooling": "mean", "normalize": True, **expected}
        if any(manifest.get(key) != value for key, value in expected.items()) or not (
            needed <= files.keys()
        ):
            raise LocalModelError(
                f"local embedding model: {path} does not describe a checksummed "
                f"{self.model} with {expected}"
            )
        for name, sha256 in files.items():
            file = self.model_dir / name
            if not file.is_file():
                raise LocalModelError(f"local embedding model: {file} is missing")
            if sha256_file(file) != sha256:
                raise LocalModelError(
                    f"local embedding model: {file} differs from its manifest (sha256 mismatch); "
                    f"restore it or rebuild with {manifest.get('built_by', 'its build tool')}"
                )
        return manifest

    # What a model defines.

    def _open(self) -> Any:
        raise NotImplementedError

    def _tokens(self, runtime: Any, texts: list[str], input_type: str) -> list[list[int]]:
        raise NotImplementedError

    def _pad_id(self, runtime: Any) -> int:
        return 0

    def _finish(
        self, runtime: Any, vectors: np.ndarray, input_type: str, texts: list[str]
    ) -> np.ndarray:
        return vectors

    def _feeds(self, runtime: Any, ids: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        raise NotImplementedError
