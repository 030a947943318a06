"""The README's quick start, as written: ``manage.py serve`` says "ready" once the port
accepts connections (not before), and the examples that follow, run as typed on a port
that is not the default one, answer; no example names a port of its own."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memories.management.commands.serve import listening
from memoryhub import embedded_db
from tests.support.live import free_port

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.DOTALL)


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def _blocks(text: str) -> list[str]:
    return [textwrap.dedent(code) for _, code in BLOCK.findall(text)]


def quick_start_calls() -> str:
    """The quick start's shell examples after ``make run`` (and before ``make test``), as
    one script; the checkout's interpreter is this one."""
    blocks = _blocks(_section(README.read_text(), "Quick start"))
    calls = [b for b in blocks if "make run" not in b and "make test" not in b]
    return "\n".join(calls).replace(".venv/bin/python", sys.executable)


@pytest.mark.parametrize("document", ["README.md", "docs/api.md", "clients/python/README.md"])
def test_no_example_names_a_port_of_its_own(document):
    """Every address follows the port chosen: ``$BASE``, set once from ``PORT``."""
    examples = "\n".join(_blocks((ROOT / document).read_text()))
    assert re.findall(r"(?:127\.0\.0\.1|localhost|0\.0\.0\.0):\d+", examples) == []


def test_a_port_bound_but_not_listening_is_not_ready_until_it_listens():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        assert not listening("127.0.0.1", port)
        server.listen()
        assert listening("127.0.0.1", port)
        assert listening("0.0.0.0", port)  # noqa: S104  (every interface: the loopback)


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "data"
    if (tmp_path / "data" / "postgres").exists():
        embedded_db.stop(tmp_path / "data")


def test_serve_says_ready_once_the_port_accepts_and_the_quick_start_then_works(data_dir):
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data_dir), "PYTHONWARNINGS": "ignore"}
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--no-demo", "--no-worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert server.stdout is not None
    lines = []
    try:
        for line in server.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("memoryhub is ready"):
                # Read the moment it was printed: the port accepts already.
                assert listening("127.0.0.1", port)
                break
        else:
            pytest.fail("serve stopped without saying it was ready:\n" + "\n".join(lines))
        assert lines[-1] == f"memoryhub is ready at {url}"
        assert f"memoryhub is starting at {url}  (database: embedded PostgreSQL" in "\n".join(lines)
        ran = subprocess.run(  # noqa: S603
            ["bash", "-euo", "pipefail", "-c", quick_start_calls()],  # noqa: S607
            cwd=ROOT,
            env={**env, "PORT": str(port)},
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        rest, _ = server.communicate(timeout=120)
    assert "memoryhub is ready" not in rest  # said once
    assert rest.splitlines()[-1] == "memoryhub stopped"
    assert ran.returncode == 0, ran.stderr
    health, event, context = ran.stdout.replace("}{", "}\n{").splitlines()
    assert '"tenant":"demo"' in health.replace(": ", ":")
    assert '"content":"I prefer to be contacted by email."' in event.replace(": ", ":")
    assert "I prefer to be contacted by email." in context
    assert '"text":"Today is' in context.replace(": ", ":")
