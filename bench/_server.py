"""A memoryhub server of a benchmark's own, for each configuration that it compares.

A configuration is a checkout (``--tree``, default this one: e.g. a ``git worktree`` of an
older commit, run with this interpreter) and environment variables (``--config
LABEL=VAR=VALUE[,VAR=VALUE]``). Each gets a fresh embedded PostgreSQL in a temporary folder,
``manage.py serve --no-demo --no-worker`` with throttling off and a SUPERVISOR key. Once the
server and its database have stopped the folder goes, or stays when asked to (a recall
run's, for bench/ranking_weights.py to search again). Several trees and several
configurations make a grid: every tree with every configuration.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Configuration:
    label: str
    tree: Path
    environment: dict[str, str] = field(default_factory=dict)


def parse_config(text: str) -> tuple[str, dict[str, str]]:
    """``LABEL=VAR=VALUE[,VAR=VALUE]`` (or ``LABEL`` alone: the defaults). A piece that does
    not start with ``VAR=`` continues the value before it, so a list keeps its commas:
    ``both=MEMORYHUB_EMBEDDING_PROVIDERS=local,voyage``."""
    label, _, rest = text.partition("=")
    if not label:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LABEL=VAR=VALUE[,VAR=VALUE]")
    environment: dict[str, str] = {}
    name = None
    for piece in rest.split(",") if rest else []:
        if _VARIABLE.match(piece):
            name, _, value = piece.partition("=")
            environment[name] = value
        elif name is None:
            raise argparse.ArgumentTypeError(f"{text!r}: expected LABEL=VAR=VALUE[,VAR=VALUE]")
        else:
            environment[name] += "," + piece
    return label, environment


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tree", action="append", type=Path, help="a memoryhub checkout (default: this one)"
    )
    parser.add_argument(
        "--config",
        action="append",
        type=parse_config,
        metavar="LABEL=VAR=VALUE[,VAR=VALUE]",
        help="a server environment to compare (repeatable; default: the defaults)",
    )


def configurations(args: argparse.Namespace) -> list[Configuration]:
    trees = [tree.resolve() for tree in args.tree or [ROOT]]
    configs = args.config or [("default", {})]
    out = []
    for tree in trees:
        if not (tree / "manage.py").exists():
            raise SystemExit(f"{tree} is not a memoryhub checkout (no manage.py)")
        for label, environment in configs:
            if len(trees) > 1:
                label = f"{tree.name}/{label}" if args.config else tree.name
            out.append(Configuration(label, tree, environment))
    labels = [c.label for c in out]
    if len(set(labels)) != len(labels):
        raise SystemExit(f"two configurations share a label: {labels}")
    return out


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
        except urllib.error.HTTPError as error:
            if error.code == 500:  # a configuration the app cannot run with: its log says why
                raise SystemExit(f"the server at {url} fails (500): see its log above") from None
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit(f"no healthy server at {url} after {timeout:.0f} s")


@dataclass(frozen=True)
class Server:
    url: str
    key: str
    configuration: Configuration
    environment: dict[str, str]
    data: Path  # MEMORYHUB_DATA_DIR: the embedded database and the secret key

    def manage(self, *arguments: str) -> str:
        """A management command of the server's checkout, on its database; its output."""
        return subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", *arguments],
            cwd=self.configuration.tree,
            env=self.environment,
            check=True,
            stdout=subprocess.PIPE,  # its errors go through: a configuration may be wrong
            text=True,
        ).stdout

    def shell(self, code: str) -> str:
        return self.manage("shell", "-v", "0", "-c", code)


@contextmanager
def serve(
    configuration: Configuration, *, tenant: str = "bench", keep: bool = False
) -> Iterator[Server]:
    """A fresh server for the configuration, its key for ``tenant``; its data folder is kept
    after it stops if ``keep``."""
    data = Path(tempfile.mkdtemp(prefix=f"memoryhub-{tenant}-"))
    environment = {
        **os.environ,
        "MEMORYHUB_DATA_DIR": str(data),
        "MEMORYHUB_THROTTLE_READ": "off",
        "MEMORYHUB_THROTTLE_WRITE": "off",
        "MEMORYHUB_LOG_LEVEL": "WARNING",
    }
    environment.pop("DATABASE_URL", None)
    environment.update(configuration.environment)
    started = time.monotonic()
    port = free_port()
    server = Server(f"http://127.0.0.1:{port}/", "", configuration, environment, data)
    process = None
    try:
        server.manage("migrate", "-v", "0")
        key = server.manage(
            "create_api_key", "--tenant", tenant, "--user", "bench", "--role", "SUPERVISOR"
        ).strip()
        server = Server(server.url, key, configuration, environment, data)
        process = subprocess.Popen(  # noqa: S603
            [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--no-demo", "--no-worker"],
            cwd=configuration.tree,
            env=environment,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_healthy(server.url, process)
        settings = " ".join(f"{k}={v}" for k, v in configuration.environment.items())
        print(
            f"[{configuration.label}] {configuration.tree} {settings or '(defaults)'}: "
            f"serving at {server.url} after {time.monotonic() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        yield server
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if keep:
            print(f"[{configuration.label}] its data stays in {data}", file=sys.stderr)
        else:
            _remove(data)


def _remove(data: Path, timeout: float = 60.0) -> None:
    """The folder, once the embedded database in it has stopped (the last process that used
    it stops it on its way out)."""
    pid = data / "postgres" / "postmaster.pid"
    deadline = time.monotonic() + timeout
    while pid.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    if pid.exists():
        print(f"the database in {data} is still running: left in place", file=sys.stderr)
        return
    shutil.rmtree(data, ignore_errors=True)
