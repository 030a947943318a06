from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from memories.models import Role
from memories.services.tenancy.api_keys import api_key_create
from memories.services.tenancy.members import member_ensure, tenant_get_or_create


class Command(BaseCommand):
    help = (
        "Create an API key for USER in TENANT (both created when missing) and print the key, "
        "alone, on standard output. The key is shown only once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--name", default="", help="a label for the key")
        parser.add_argument("--expires-days", type=int, default=None)

    def handle(self, *args, **opts):
        if opts["expires_days"] is not None and opts["expires_days"] <= 0:
            raise CommandError("--expires-days must be a positive number of days")
        expires_at = (
            timezone.now() + timedelta(days=opts["expires_days"]) if opts["expires_days"] else None
        )
        try:
            with transaction.atomic():
                tenant = tenant_get_or_create(slug=opts["tenant"])
                user = member_ensure(tenant=tenant, username=opts["user"], role=opts["role"])
                _, raw = api_key_create(
                    tenant=tenant, user=user, name=opts["name"], expires_at=expires_at
                )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(raw)
