import os
import signal
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.core.management.commands import runserver
from django.core.servers import basehttp

from memories.demo import DEMO_USERS
from memories.management.commands.seed_demo import DEFAULT_PASSWORD
from memories.middleware import SERVER_NAME


class QuietRequestHandler(basehttp.WSGIRequestHandler):
    """Names no server software or version in the answers the HTTP layer writes itself
    (a malformed request line, a URL too long); the app's answers carry the ``Server``
    header that ``memories.middleware.ServerHeaderMiddleware`` sets."""

    def version_string(self) -> str:
        return SERVER_NAME


class QuietWSGIServer(basehttp.WSGIServer):
    def __init__(self, server_address, handler_class, *args, **kwargs):
        super().__init__(server_address, QuietRequestHandler, *args, **kwargs)


class WebServer(runserver.Command):
    server_cls = QuietWSGIServer


class Command(BaseCommand):
    help = (
        "Run memoryhub: migrate, seed the demo tenant, start a django-q2 worker and the web "
        "server. Ctrl-C stops all of it (and the embedded database when nothing else uses it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-demo", action="store_true", help="do not seed the demo tenant")
        parser.add_argument("--no-worker", action="store_true", help="do not start a worker")
        parser.add_argument(
            "--password", default=os.environ.get("MEMORYHUB_DEMO_PASSWORD", DEFAULT_PASSWORD)
        )

    def handle(self, *args, **opts):
        # SIGTERM behaves like Ctrl-C, so the clean-up below and the embedded server's run.
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database migrated")
        if not opts["no_demo"]:
            call_command("seed_demo", password=opts["password"])
        call_command("setup_schedules", verbosity=0)

        worker = None
        if not opts["no_worker"]:
            manage = Path(settings.BASE_DIR) / "manage.py"
            # Its own session: Ctrl-C reaches only this process, which stops the worker once.
            worker = subprocess.Popen(  # noqa: S603
                [sys.executable, str(manage), "qcluster"], start_new_session=True
            )

        url = f"http://{opts['addrport']}/"
        database = (
            "embedded PostgreSQL in " + str(settings.DATA_DIR)
            if (settings.EMBEDDED_DATABASE)
            else "DATABASE_URL"
        )
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"memoryhub is running at {url}  (database: {database})",
                    f"  health:  {url}api/v1/health/",
                    f"  admin:   {url}admin/",
                    "  logins:  "
                    + (
                        ", ".join(name for name, _ in DEMO_USERS)
                        + f"  (password: {opts['password']})"
                        if not opts["no_demo"]
                        else "create users with manage.py createsuperuser"
                    ),
                    "  API key: python manage.py create_api_key --tenant demo --user agent "
                    "--role SUPERVISOR",
                    "Press Ctrl-C to stop.",
                    "",
                ]
            )
        )
        try:
            call_command(WebServer(), opts["addrport"], use_reloader=False)
        except KeyboardInterrupt:
            pass
        finally:
            if worker is not None and worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
            self.stdout.write("memoryhub stopped")
