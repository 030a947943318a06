"""Running a short program inside another memoryhub checkout, so that a bench measures that
tree's own code beside this one's in one run (bench/parity.py, bench/secrets_said.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_in(tree: Path, program: str, payload, **environment: str):
    """``program``'s JSON answer (the last line it prints), run by this interpreter with
    ``tree`` first on the path and ``payload`` as JSON on its standard input. Django is
    configured with the tree's settings; ``environment`` adds variables (a database URL
    never connected to keeps the embedded PostgreSQL from starting when nothing needs it)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "memoryhub.settings"),
        "MEMORYHUB_LOG_LEVEL": "ERROR",
        **environment,
    }
    done = subprocess.run(  # noqa: S603 - this interpreter and the bench's own program
        [sys.executable, "-c", program],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the program failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
