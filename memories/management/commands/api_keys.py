"""List and revoke API keys. Keys are created by ``create_api_key`` (which shows the raw
key once); nothing here can show a secret, since only its hash is stored."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from memories.models import ApiKey, Tenant
from memories.services.tenancy.api_keys import api_key_revoke, api_key_state

COLUMNS = ("prefix", "tenant", "user", "name", "state", "created", "expires", "last used")


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


class Command(BaseCommand):
    help = "List API keys (prefix, owner, state, expiry, last use) or revoke one by prefix."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        listing = sub.add_parser("list", help="list keys, newest first")
        listing.add_argument("--tenant", help="only this tenant's keys (slug)")
        listing.add_argument(
            "--active",
            action="store_true",
            help="only keys that still work (not revoked or expired)",
        )
        revoke = sub.add_parser("revoke", help="revoke a key; it answers 401 from then on")
        revoke.add_argument("prefix", help="the key's prefix: the 8 characters after mh_")
        revoke.add_argument("--reason", default="", help="kept in the audit trail")

    def handle(self, *args, **opts):
        if opts["action"] == "list":
            self._list(tenant=opts["tenant"], active_only=opts["active"])
        else:
            self._revoke(prefix=opts["prefix"], reason=opts["reason"])

    def _list(self, *, tenant: str | None, active_only: bool) -> None:
        keys = ApiKey.objects.select_related("tenant", "user").order_by("-created_at")
        if tenant:
            if not Tenant.objects.filter(slug=tenant).exists():
                raise CommandError(f"no tenant {tenant!r}")
            keys = keys.filter(tenant__slug=tenant)
        now = timezone.now()
        rows = [
            (
                key.prefix,
                key.tenant.slug,
                key.user.get_username(),
                key.name or "-",
                api_key_state(key, now),
                _when(key.created_at),
                _when(key.expires_at),
                _when(key.last_used_at),
            )
            for key in keys
        ]
        if active_only:
            rows = [row for row in rows if row[4] == "active"]
        widths = [max(len(str(r[i])) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]
        for row in [COLUMNS, *rows]:
            self.stdout.write(
                "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
            )

    def _revoke(self, *, prefix: str, reason: str) -> None:
        # Accept the whole key by mistake too, without ever echoing its secret.
        if prefix.startswith("mh_"):
            prefix = prefix.split("_")[1]
        key = ApiKey.objects.filter(prefix=prefix).select_related("tenant").first()
        if key is None:
            raise CommandError(f"no API key with prefix {prefix!r}")
        if key.revoked_at is not None:
            self.stdout.write(f"key {prefix} was already revoked on {_when(key.revoked_at)}")
            return
        api_key_revoke(key=key, reason=reason or "revoked with manage.py api_keys")
        self.stdout.write(f"key {prefix} of {key.user} in {key.tenant.slug} revoked")
