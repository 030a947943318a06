import os

from django.core.management.base import BaseCommand, CommandError

from mcp_server.stdio import KeyRefused, serve_stdio


class Command(BaseCommand):
    help = (
        "Serve the MCP server over stdio (for an MCP host that starts it), acting with one "
        "API key: --key, or MEMORYHUB_API_KEY."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--key",
            default=os.environ.get("MEMORYHUB_API_KEY", ""),
            help="The API key every call acts with (default: $MEMORYHUB_API_KEY).",
        )

    def handle(self, *args, **opts):
        try:
            serve_stdio(opts["key"])
        except KeyRefused as exc:
            raise CommandError(f"MCP server not started: {exc}") from exc
