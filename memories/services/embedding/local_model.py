"""Offline sentence embeddings on onnxruntime, with no key and no network.

Two models: multilingual-e5-small, the default (``multilingual``, provider ``local``), and
all-MiniLM-L6-v2 (English, provider ``local-minilm``), the default before it, which an
installation keeps searching with until its memories have vectors of the new model
(``memories.services.embedding.spaces``). Both are an encoder, mean pooling over the
attention mask and L2 normalisation (``OnnxEmbedder``). MiniLM's files under
``memories/local_model/`` are made once by ``tools/build_local_model.py`` from the verified
upstream weights, reproducing sentence-transformers' pipeline for it: WordPiece tokens
truncated at 256, the transformer, the pooling.
"""

from __future__ import annotations

import threading

import numpy as np

from memories.services.embedding.multilingual import MultilingualEmbedder
from memories.services.embedding.onnx_encoder import (
    MANIFEST,
    MODEL_DIR,
    THREADS_ENV,
    LocalModelError,
    OnnxEmbedder,
    _Runtime,
)

__all__ = [
    "MANIFEST",
    "MODEL_DIR",
    "THREADS_ENV",
    "LocalModelError",
    "MiniLMEmbedder",
    "MultilingualEmbedder",
    "OnnxEmbedder",
    "embedder_class",
    "get_local_embedder",
]


class MiniLMEmbedder(OnnxEmbedder):
    """all-MiniLM-L6-v2 (English): sentence-transformers' pipeline for it, WordPiece tokens
    truncated at 256. The default before multilingual-e5-small; kept for installations whose
    vectors are still in its space (``local-minilm``)."""

    model = "all-MiniLM-L6-v2"

    def _open(self) -> _Runtime:
        manifest = self._verified_manifest({})
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.model_dir / manifest["tokenizer"]))
        # The shipped tokenizer.json is upstream's, which pads and truncates to 128; the model
        # card's 256 is what sentence-transformers applies.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=int(manifest["max_seq_length"]))
        session = self._session(self.model_dir / manifest["model"])
        names = frozenset(i.name for i in session.get_inputs())
        return _Runtime(session=session, tokenizer=tokenizer, input_names=names)

    def _tokens(self, runtime: _Runtime, texts: list[str], input_type: str) -> list[list[int]]:
        return [e.ids for e in runtime.tokenizer.encode_batch(texts)]

    def _feeds(self, runtime: _Runtime, ids: np.ndarray, mask: np.ndarray) -> dict:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return {k: v for k, v in feeds.items() if k in runtime.input_names}


_embedders: dict[str, OnnxEmbedder] = {}
_embedder_lock = threading.Lock()


def embedder_class(name: str) -> type[OnnxEmbedder]:
    """The offline model of the provider ``name`` (``local`` or ``local-minilm``)."""
    classes: dict[str, type[OnnxEmbedder]] = {
        "local": MultilingualEmbedder,
        "local-minilm": MiniLMEmbedder,
    }
    return classes[name]


def get_local_embedder(name: str = "local") -> OnnxEmbedder:
    """The process-wide embedder of a local provider: one ONNX session per process, loaded
    on first use."""
    with _embedder_lock:
        embedder = _embedders.get(name)
        if embedder is None:
            embedder = _embedders[name] = embedder_class(name)()
        return embedder
