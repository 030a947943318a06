"""``memoryhub-mcp``: the stdio MCP server as a console script, for MCP hosts' configs
(``manage.py mcp`` does the same from a checkout)."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["memoryhub-mcp", "mcp", *(sys.argv[1:] if argv is None else argv)])
