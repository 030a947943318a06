import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.management.commands import runserver
from django.core.servers import basehttp
from django.db import connections

from memories.management.commands.seed_demo import DEFAULT_PASSWORD
from memories.management.demo import DEMO_USERS
from memories.middleware import SERVER_NAME
from memoryhub import embedded_db, serving
from memoryhub.observability import metrics


class QuietRequestHandler(basehttp.WSGIRequestHandler):
    """Names no server software or version in the answers the HTTP layer writes itself
    (a malformed request line, a URL too long); the app's answers carry the ``Server``
    header that ``memories.middleware.ServerHeaderMiddleware`` sets."""

    def version_string(self) -> str:
        return SERVER_NAME


class QuietWSGIServer(basehttp.WSGIServer):
    def __init__(self, server_address, handler_class, *args, **kwargs):
        super().__init__(server_address, QuietRequestHandler, *args, **kwargs)


class DevServer(runserver.Command):
    server_cls = QuietWSGIServer


class Command(BaseCommand):
    help = (
        "Run memoryhub: migrate, seed the demo tenant, start a django-q2 worker and the "
        "production web server (granian, sized from the machine; --dev: Django's autoreloading "
        "development server). Ctrl-C or SIGTERM stops all of it gracefully (and the embedded "
        "database when nothing else uses it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-demo", action="store_true", help="do not seed the demo tenant")
        parser.add_argument("--no-worker", action="store_true", help="do not start a worker")
        parser.add_argument(
            "--dev",
            action="store_true",
            help="Django's development server, reloading on code changes (never in production)",
        )
        parser.add_argument(
            "--password", default=os.environ.get("MEMORYHUB_DEMO_PASSWORD", DEFAULT_PASSWORD)
        )

    def handle(self, *args, **opts):
        if opts["dev"] and os.environ.get("RUN_MAIN") == "true":
            # The development server's reloaded child: the parent did the rest.
            call_command(DevServer(), opts["addrport"])
            return
        host, _, port = opts["addrport"].rpartition(":")
        if not host or not port.isdigit():
            raise CommandError(f"addrport must be HOST:PORT, not {opts['addrport']!r}")
        # Before anything starts: a port in use is one line, not a server's traceback.
        _check_free(host.strip("[]"), int(port))
        # SIGTERM behaves like Ctrl-C, so the clean-up below and the embedded server's run.
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database migrated")
        if not opts["no_demo"]:
            call_command("seed_demo", password=opts["password"])
        call_command("setup_schedules", verbosity=0)
        # Nothing below uses this process's connection; the children open their own.
        connections.close_all()

        plan = serving.plan(cores=serving.cores(), memory=embedded_db.available_memory())
        environment = self._environment(plan)
        worker = None
        if not opts["no_worker"]:
            manage = Path(settings.BASE_DIR) / "manage.py"
            # Its own session: Ctrl-C reaches only this process, which stops the worker once.
            worker = subprocess.Popen(  # noqa: S603
                serving.child_command([sys.executable, str(manage), "worker"]),
                start_new_session=True,
                env={**environment, serving.EMBEDDER_THREADS_ENV: str(plan.embedder_threads)},
            )
        self._banner(opts, plan)
        web, failed = None, 0
        stopped = threading.Event()
        self._announce_when_listening(host.strip("[]"), int(port), opts["addrport"], stopped)
        try:
            if opts["dev"]:
                call_command(DevServer(), opts["addrport"])
            else:
                web = subprocess.Popen(  # noqa: S603
                    serving.child_command(plan.command(host.strip("[]"), int(port))),
                    cwd=settings.BASE_DIR,
                    env={**environment, **plan.environment()},
                    start_new_session=True,
                )
                failed = web.wait()  # it stopped of itself: 0 only when asked to
        except KeyboardInterrupt:
            pass
        finally:
            stopped.set()
            # The web server first (it finishes the requests in flight), then the worker
            # (it finishes its task).
            for process in (web, worker):
                _stop(process, timeout=serving.GRACEFUL_TIMEOUT + 5)
            multiprocess_dir = environment.get(metrics.MULTIPROCESS_ENV)
            if multiprocess_dir and multiprocess_dir != os.environ.get(metrics.MULTIPROCESS_ENV):
                shutil.rmtree(multiprocess_dir, ignore_errors=True)
            self.stdout.write("memoryhub stopped")
        if failed:
            raise CommandError(f"the web server stopped with exit status {failed} (log above)")

    def _environment(self, plan: serving.Plan) -> dict[str, str]:
        environment = dict(os.environ)
        # Web processes and the worker count into one folder, which /metrics adds up
        # (prometheus-client's multi-process mode); a fresh one per run.
        if not environment.get(metrics.MULTIPROCESS_ENV):
            environment[metrics.MULTIPROCESS_ENV] = tempfile.mkdtemp(prefix="memoryhub-metrics-")
        return environment

    def _banner(self, opts, plan: serving.Plan) -> None:
        url = f"http://{opts['addrport']}/"
        database = (
            "embedded PostgreSQL in " + str(settings.DATA_DIR)
            if (settings.EMBEDDED_DATABASE)
            else "DATABASE_URL"
        )
        server = (
            "development server (reloads on code changes)"
            if opts["dev"]
            else f"granian: {plan.describe()}"
        )
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"memoryhub is starting at {url}  (database: {database})",
                    f"  server:  {server}",
                    f"  health:  {url}api/v1/health/",
                    f"  admin:   {url}admin/",
                    "  logins:  "
                    + (
                        ", ".join(name for name, _ in DEMO_USERS)
                        + f"  (password: {opts['password']})"
                        if not opts["no_demo"]
                        else "create users with manage.py createsuperuser"
                    ),
                    f"  API key: {_python()} manage.py create_api_key --tenant demo "
                    "--user agent --role SUPERVISOR",
                    "Press Ctrl-C to stop.",
                    "",
                ]
            )
        )
        self.stdout.flush()

    def _announce_when_listening(
        self, host: str, port: int, addrport: str, stopped: threading.Event
    ) -> None:
        """Say "ready" once the web server accepts connections on the port, not before:
        a script (or a person) that waits for the line can call the API at once."""

        def wait() -> None:
            while not stopped.is_set():
                if listening(host, port):
                    self.stdout.write(f"memoryhub is ready at http://{addrport}/")
                    self.stdout.flush()
                    return
                time.sleep(0.2)

        threading.Thread(target=wait, name="ready-line", daemon=True).start()


def _python() -> str:
    """This interpreter as someone at the checkout would type it (``.venv/bin/python``, as
    the README does), or its full path when it lives elsewhere."""
    python = Path(sys.executable)
    try:
        return str(python.relative_to(Path(settings.BASE_DIR).resolve()))
    except ValueError:
        return str(python)


def _check_free(host: str, port: int) -> None:
    """A CommandError that says so when ``host:port`` cannot be listened on (taken, or an
    address this machine does not have)."""
    try:
        with socket.create_server((host, port), family=_family(host)):
            pass
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(
                f"port {port} is taken on {host}: stop what uses it, or choose another "
                f"(make run PORT={port + 1}, or manage.py serve {host}:{port + 1})"
            ) from None
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


# An address a server listens on for every interface is reached on the loopback.
_LOOPBACK = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}  # noqa: S104


def listening(host: str, port: int) -> bool:
    """Whether something accepts connections on ``host:port`` now."""
    try:
        with socket.create_connection((_LOOPBACK.get(host, host), port), timeout=1):
            return True
    except OSError:
        return False


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _stop(process: subprocess.Popen | None, *, timeout: float) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
