"""MEMORYHUB_MASTER_KEY in either base64 alphabet: the standard one and the URL-safe one
that ``Fernet.generate_key()`` prints. The same bytes are the same key either way."""

import base64

import pytest
from cryptography.fernet import Fernet

from memories.crypto.providers import KeyUnavailable, LocalKeyProvider, master_version
from memories.models import Event, Role
from memories.services.tenancy.encryption import tenant_create
from memories.services.write.ingest import EventInput, event_ingest
from tests.support import factories

pytestmark = pytest.mark.django_db

# Bytes whose base64 uses the two characters where the alphabets differ (+/ against -_).
RAW = bytes([0xFB, 0xEF, 0xFF]) * 10 + b"\xfb\xef"
STANDARD = base64.b64encode(RAW).decode()
URL_SAFE = base64.urlsafe_b64encode(RAW).decode()


def test_the_two_spellings_differ_where_the_alphabets_do():
    assert ("+" in STANDARD or "/" in STANDARD) and ("-" in URL_SAFE or "_" in URL_SAFE)


@pytest.mark.parametrize(
    "spelling",
    [STANDARD, URL_SAFE, URL_SAFE.rstrip("="), STANDARD.rstrip("=")],
    ids=["standard", "url-safe", "url-safe unpadded", "standard unpadded"],
)
def test_either_alphabet_is_the_same_master_key(spelling):
    provider = LocalKeyProvider(current=spelling, old="")

    assert provider.current_version == master_version(RAW)
    wrapped, version = LocalKeyProvider(current=STANDARD, old="").wrap(b"k" * 32)
    assert provider.unwrap(wrapped, version) == b"k" * 32


def test_a_fernet_generated_key_runs_an_encrypted_tenant(settings):
    settings.MEMORYHUB_MASTER_KEY = Fernet.generate_key().decode()
    tenant = tenant_create(slug="vault", encrypted=True)
    user = factories.UserFactory.create(username="sv")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)

    event_ingest(user=user, tenant=tenant, item=EventInput(client="ana", content="I like figs."))

    assert Event.objects.get(tenant=tenant).content == "I like figs."


@pytest.mark.parametrize(
    "bad", ["not base64 at all", URL_SAFE[:-8], base64.b64encode(b"x" * 31).decode()]
)
def test_anything_else_is_still_refused(bad):
    with pytest.raises(KeyUnavailable, match="32 random bytes in base64, standard or URL-safe"):
        LocalKeyProvider(current=bad, old="")
