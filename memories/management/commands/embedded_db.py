import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memoryhub import embedded_db


class Command(BaseCommand):
    help = "Status of the embedded PostgreSQL server, or stop it (whoever started it)."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["status", "stop"])

    def handle(self, *args, **opts):
        if not settings.EMBEDDED_DATABASE:
            raise CommandError("DATABASE_URL is set: there is no embedded server to manage")
        if opts["action"] == "status":
            self.stdout.write(json.dumps(embedded_db.status(settings.DATA_DIR), indent=2))
        else:
            from django.db import connections

            connections.close_all()
            stopped = embedded_db.stop(settings.DATA_DIR)
            self.stdout.write("stopped" if stopped else "not running")
