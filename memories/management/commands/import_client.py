import sys

from django.core.management.base import BaseCommand, CommandError

from memories import jsonbody
from memories.errors import DomainError
from memories.models import Tenant
from memories.services.client_data.importing import client_import


class Command(BaseCommand):
    help = "Recreate a client in a tenant from its export (GET /api/v1/clients/{ref}/export/)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export document (JSON); - reads stdin")
        parser.add_argument("--tenant", required=True, help="the tenant's slug")

    def handle(self, *args, file, tenant, **opts):
        target = Tenant.objects.filter(slug=tenant).first()
        if target is None:
            raise CommandError(f"no tenant {tenant!r}")
        try:
            if file == "-":
                data = jsonbody.loads(sys.stdin.read())
            else:
                with open(file, encoding="utf-8") as handle:
                    data = jsonbody.loads(handle.read())
        except jsonbody.Unfit as exc:
            where = f" at {exc.path}" if exc.path else ""
            raise CommandError(f"cannot import {file}{where}: {exc.message}") from exc
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {file}: {exc}") from exc
        try:
            client = client_import(tenant=target, data=data, actor_label="manage.py import_client")
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"imported client {client.external_ref} ({client.pk}) into {tenant}")
