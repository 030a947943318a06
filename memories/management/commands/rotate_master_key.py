import os

from django.core.management.base import BaseCommand, CommandError

from memories.crypto.providers import DEFAULT_PROVIDER, KeyUnavailable, LocalKeyProvider
from memories.services.tenancy.encryption import master_key_rotate


class Command(BaseCommand):
    help = (
        "Re-wrap every data key under the current master key (MEMORYHUB_MASTER_KEY). The old "
        "one comes from MEMORYHUB_MASTER_KEYS_OLD or --old-key-env. No downtime: ciphertexts "
        "do not change, and processes holding both keys read throughout."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--old-key-env",
            metavar="VAR",
            help="the environment variable that holds the old master key (base64); "
            "a variable, not an argument, so the key stays out of process listings",
        )
        parser.add_argument("--batch-size", type=int, default=500)

    def handle(self, *args, old_key_env=None, batch_size, **opts):
        from django.conf import settings

        provider = None
        try:
            if old_key_env:
                if (
                    getattr(settings, "MEMORYHUB_KEY_PROVIDER", DEFAULT_PROVIDER)
                    != DEFAULT_PROVIDER
                ):
                    raise CommandError("--old-key-env is for the local key provider only")
                old = os.environ.get(old_key_env, "")
                if not old:
                    raise CommandError(f"environment variable {old_key_env} is empty")
                provider = LocalKeyProvider(old=",".join(filter(None, [old, _configured_old()])))
            done = master_key_rotate(provider=provider, batch_size=batch_size)
        except KeyUnavailable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"re-wrapped {done} keys")


def _configured_old() -> str:
    from django.conf import settings

    return getattr(settings, "MEMORYHUB_MASTER_KEYS_OLD", "") or ""
