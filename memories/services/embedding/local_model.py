"""Offline sentence embeddings: all-MiniLM-L6-v2 on onnxruntime, with no key and no network.

The files under ``memories/local_model/`` are made once by ``tools/build_local_model.py``
from the verified upstream weights. This module reproduces sentence-transformers' pipeline
for that model: WordPiece tokens truncated at 256, the transformer, mean pooling over the
attention mask, L2 normalisation.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MODEL_DIR = Path(__file__).resolve().parents[2] / "local_model"  # memories/local_model/
MANIFEST = "manifest.json"
THREADS_ENV = "MEMORYHUB_LOCAL_EMBEDDER_THREADS"
BATCH_SIZE = 64
# Attention memory grows with batch x length^2: long texts go in smaller batches (the cost per
# token hardly depends on batch size, but onnxruntime keeps its peak memory for good).
MAX_BATCH_TOKENS = 4096


class LocalModelError(RuntimeError):
    """The local model's files are missing, altered or do not describe this model."""


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]


def _sha256(path: Path) -> str:
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


class LocalEmbedder:
    provider = "local"
    model = "all-MiniLM-L6-v2"
    dimension = 384

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self._threads = threads
        self._runtime: _Runtime | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def load(self) -> None:
        """Verify and load the model now rather than on the first ``embed``."""
        self._load()

    @property
    def threads(self) -> int:
        """The threads one ``embed`` computes on."""
        return self._threads or _threads_from_env()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        runtime = self._load()
        encodings = runtime.tokenizer.encode_batch(list(texts))
        vectors = np.empty((len(encodings), self.dimension), dtype=np.float32)
        batch: list[int] = []
        # Shortest first, so similar lengths share a batch and the newest member is the longest.
        for i in sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids)):
            padded = (len(batch) + 1) * len(encodings[i].ids)
            if batch and (len(batch) == self.batch_size or padded > self.max_batch_tokens):
                vectors[batch] = self._run(runtime, [encodings[j] for j in batch])
                batch = []
            batch.append(i)
        vectors[batch] = self._run(runtime, [encodings[j] for j in batch])
        return vectors.tolist()

    def _run(self, runtime: _Runtime, encodings: list) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = runtime.session.run(
            ["last_hidden_state"], {k: v for k, v in feeds.items() if k in runtime.input_names}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def _load(self) -> _Runtime:
        # A forked worker must not reuse its parent's session: onnxruntime's thread pools do
        # not survive fork.
        runtime = self._runtime
        if runtime is not None and self._pid == os.getpid():
            return runtime
        with self._lock:
            if self._runtime is None or self._pid != os.getpid():
                self._runtime, self._pid = self._open(), os.getpid()
            return self._runtime

    def _open(self) -> _Runtime:
        manifest = self._verified_manifest()
        # Imported here so that importing this module stays cheap for processes that never embed.
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.model_dir / manifest["tokenizer"]))
        # The shipped tokenizer.json is upstream's, which pads and truncates to 128; the model
        # card's 256 is what sentence-transformers applies.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=int(manifest["max_seq_length"]))

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        # Measured: no slower here, and a batch of long texts no longer pins ~300 MB for good.
        options.enable_cpu_mem_arena = False
        # Constant folding also turns the int8-stored weights back into fp32, once, here.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = onnxruntime.InferenceSession(
            str(self.model_dir / manifest["model"]), options, providers=["CPUExecutionProvider"]
        )
        _release_freed_memory()
        names = frozenset(i.name for i in session.get_inputs())
        return _Runtime(session=session, tokenizer=tokenizer, input_names=names)

    def _verified_manifest(self) -> dict:
        path = self.model_dir / MANIFEST
        if not path.is_file():
            raise LocalModelError(
                f"local embedding model: {path} is missing; restore memories/local_model/ "
                "or rebuild it with tools/build_local_model.py"
            )
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            files: dict[str, str] = dict(manifest["files"])
            needed = {manifest["model"], manifest["tokenizer"]}
            int(manifest["max_seq_length"])
        except (ValueError, KeyError, TypeError) as exc:
            raise LocalModelError(f"local embedding model: {path} is not a valid manifest") from exc
        expected = {"dimension": self.dimension, "pooling": "mean", "normalize": True}
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
            if _sha256(file) != sha256:
                raise LocalModelError(
                    f"local embedding model: {file} differs from its manifest (sha256 mismatch); "
                    "restore it or rebuild with tools/build_local_model.py"
                )
        return manifest


_embedder: LocalEmbedder | None = None
_embedder_lock = threading.Lock()


def get_local_embedder() -> LocalEmbedder:
    """The process-wide embedder: one ONNX session per process, loaded on first use."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            _embedder = LocalEmbedder()
        return _embedder
