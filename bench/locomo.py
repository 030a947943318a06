"""Recall on conversations nobody here wrote: LoCoMo through the API, against a server of
its own on the embedded default, beside the raw-turn baselines, in one run.

    python bench/locomo.py [--tree DIR ...] [--conversations N] [--baselines] [--json OUT]

Each ``--tree`` (default: this checkout) is a memoryhub checkout, e.g. a ``git worktree``
of an older commit, run with this interpreter: a fresh embedded database in a temporary
folder, ``manage.py serve --no-demo`` with throttling off, a SUPERVISOR key, then
``locomo_eval.py`` (see its docstring for the figures). ``--baselines`` also runs
``locomo_baselines.py`` (BM25, dense with the shipped model and RRF over the raw turns, on
every conversation; it needs ``pip install rank-bm25``) on the same questions.

The data set and both scripts live outside the repository (``../shared/benchmarks/locomo/``,
or ``--benchmark-dir``): its licence allows evaluation, not redistribution.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARK = ROOT.parent / "shared" / "benchmarks" / "locomo"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, server: subprocess.Popen, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode})")
        try:
            with urllib.request.urlopen(url + "api/v1/health/", timeout=5) as answer:  # noqa: S310
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit(f"no healthy server at {url} after {timeout:.0f} s")


# Queries that nothing in a conversation answers (words drawn from unrelated fields): the
# answer should be empty, not the client's nearest memories.
NONSENSE = [
    "xylophone quantum",
    "purple submarine tax",
    "quantum chromodynamics lattice gauge",
    "tungsten carbide drill bits",
    "byzantine iconoclasm decree",
    "sourdough hydration ratio",
    "kubernetes ingress controller",
    "mitochondrial haplogroup",
    "cobalt blue glaze kiln",
    "medieval falconry hood",
    "zeppelin hangar rivets",
    "photosynthesis rubisco enzyme",
    "offshore oil rig ballast",
    "baroque harpsichord tuning",
    "titanium alloy fatigue",
    "glacier moraine sediment",
    "ottoman tax farming",
    "cryptocurrency mining difficulty",
    "tectonic subduction zone",
    "bebop saxophone scales",
    "llama wool spinning wheel",
    "fermat last theorem proof",
    "submarine sonar ping",
    "volcanic obsidian blade",
    "antique barometer repair",
    "semiconductor lithography mask",
    "polar bear migration",
    "nuclear reactor control rods",
    "hieroglyph cartouche reading",
    "cricket bowling yorker",
]
_CLIENT_REFS = (
    "from memories.models import Client; "
    "print('\\n'.join(Client.objects.values_list('external_ref', flat=True)))"
)
# What the write path kept, in SQL that every version of the schema answers: events, the
# events that yielded no memory, memories by kind.
_STORED = (
    "from django.db import connection; import json; c = connection.cursor(); "
    'c.execute("SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM '
    'memories_evidence v WHERE v.event_id = e.id)) FROM memories_event e"); '
    "events, bare = c.fetchone(); "
    "c.execute('SELECT kind, count(*) FROM memories_memory GROUP BY kind'); "
    "print(json.dumps({'events': events, 'events_yielding_nothing': bare, "
    "'memories': dict(c.fetchall())}))"
)


def duplicate_rate(url: str, key: str, ref: str, questions: list[str]) -> list[float]:
    """Per question, the share of the top 10 that repeat an earlier result (the same words)."""
    rates = []
    for question in questions:
        results = _search(url, key, ref, question, 10)
        seen: list[frozenset] = []
        repeats = 0
        for result in results:
            words = frozenset(re.findall(r"\w+", result["content"].lower()))
            if any(len(words & w) >= 0.9 * max(len(words | w), 1) for w in seen):
                repeats += 1
            seen.append(words)
        rates.append(repeats / len(results) if results else 0.0)
    return rates


def _search(url: str, key: str, ref: str, query: str, k: int) -> list[dict]:
    request = urllib.request.Request(  # noqa: S310
        url + "api/v1/search/",
        data=json.dumps({"client": ref, "query": query, "k": k}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        return json.loads(answer.read())["results"]


def nonsense(url: str, key: str, refs: list[str]) -> dict:
    """How many nonsense queries answer nothing, and how many results the others give."""
    empty, results = 0, []
    for ref in refs:
        for query in NONSENSE:
            found = len(_search(url, key, ref, query, 10))
            empty += found == 0
            results.append(found)
    asked = len(results)
    return {
        "queries": asked,
        "answered_nothing": round(empty / asked, 3) if asked else None,
        "results_mean": round(sum(results) / asked, 2) if asked else None,
    }


def run_tree(tree: Path, args: argparse.Namespace) -> dict:
    data = Path(tempfile.mkdtemp(prefix="memoryhub-locomo-"))
    env = {
        **os.environ,
        "MEMORYHUB_DATA_DIR": str(data),
        "MEMORYHUB_THROTTLE_READ": "off",
        "MEMORYHUB_THROTTLE_WRITE": "off",
        "MEMORYHUB_LOG_LEVEL": "WARNING",
    }
    env.pop("DATABASE_URL", None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=tree, env=env, check=True)  # noqa: S603
    key = subprocess.run(  # noqa: S603
        [
            *manage,
            "create_api_key",
            "--tenant",
            "locomo",
            "--user",
            "bench",
            "--role",
            "SUPERVISOR",
        ],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(  # noqa: S603
        [*manage, "serve", f"127.0.0.1:{port}", "--no-demo", "--no-worker"],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_healthy(url, server)
        command = [sys.executable, str(args.benchmark_dir / "locomo_eval.py"), url, key]
        if args.conversations:
            command += ["--conversations", str(args.conversations)]
        out = Path(data) / "figures.json"
        subprocess.run([*command, "--json", str(out)], check=True)  # noqa: S603
        figures = json.loads(out.read_text())
        refs = subprocess.run(  # noqa: S603
            [*manage, "shell", "-v", "0", "-c", _CLIENT_REFS],
            cwd=tree,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        figures["nonsense"] = nonsense(url, key, refs)
        figures["stored"] = json.loads(
            subprocess.run(  # noqa: S603
                [*manage, "shell", "-v", "0", "-c", _STORED],
                cwd=tree,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        sys.path.insert(0, str(args.benchmark_dir))
        from locomo_eval import questions_of, turns_of

        samples = json.loads((args.benchmark_dir / "locomo_dev.json").read_text())
        rates = []
        for sample in samples:
            ref = next((r for r in refs if r.startswith(f"locomo-{sample['sample_id']}-")), None)
            if ref:
                known = {t["id"] for t in turns_of(sample)}
                asked = [q["q"] for q in questions_of(sample, known)]
                rates += duplicate_rate(url, key, ref, asked)
        figures["duplicate_rate@10"] = round(sum(rates) / len(rates), 4) if rates else None
        return figures
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, help="a memoryhub checkout")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N")
    parser.add_argument("--baselines", action="store_true", help="also the raw-turn baselines")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARK)
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if not (args.benchmark_dir / "locomo_eval.py").exists():
        raise SystemExit(f"no locomo_eval.py in {args.benchmark_dir} (see --benchmark-dir)")
    figures: dict[str, dict] = {}
    for tree in args.tree or [ROOT]:
        figures[str(tree.resolve())] = run_tree(tree.resolve(), args)
    if args.baselines:
        model = ROOT / "memories" / "local_model"
        command = [sys.executable, str(args.benchmark_dir / "locomo_baselines.py")]
        command += [
            "--onnx",
            str(model / "model.onnx"),
            "--tokenizer",
            str(model / "tokenizer.json"),
        ]
        answer = subprocess.run(command, check=True, capture_output=True, text=True)  # noqa: S603
        figures["baselines"] = {"output": answer.stdout}
        print(answer.stdout)
    for name, values in figures.items():
        print(name, json.dumps(values))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
