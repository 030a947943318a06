import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from memories.models import ApiKey, Membership, Role, Tenant
from memories.services.api_keys import api_key_revoke

pytestmark = pytest.mark.django_db

HEALTH = "/api/v1/health/"


def _create_key(**opts) -> str:
    out = io.StringIO()
    call_command("create_api_key", stdout=out, **opts)
    return out.getvalue()


def test_create_api_key_prints_only_the_key_and_creates_tenant_and_user():
    output = _create_key(tenant="newco", user="agent-1", role="ADVISOR")
    raw = output.strip()
    assert output == raw + "\n"
    assert raw.startswith("mh_") and len(raw.split("_", 2)) == 3
    membership = Membership.objects.get(tenant__slug="newco", user__username="agent-1")
    assert membership.role == Role.ADVISOR
    assert Tenant.objects.filter(slug="newco").count() == 1


def test_key_is_stored_hashed_with_a_visible_prefix():
    raw = _create_key(tenant="newco", user="agent-1", role="ADVISOR").strip()
    key = ApiKey.objects.get()
    assert key.prefix == raw.split("_")[1]
    assert raw not in key.hashed_secret
    assert raw.split("_", 2)[2] not in key.hashed_secret
    assert len(key.hashed_secret) == 64


def test_create_api_key_works_as_bearer_token_on_health(api_client):
    raw = _create_key(tenant="newco", user="agent-1", role="SUPERVISOR").strip()
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 200
    assert response.json()["caller"] == {
        "user": "agent-1",
        "tenant": "newco",
        "role": "SUPERVISOR",
        "key": raw.split("_")[1],
    }
    assert ApiKey.objects.get().last_used_at is not None


def test_create_api_key_refuses_to_change_an_existing_role():
    _create_key(tenant="newco", user="agent-1", role="ADVISOR")
    with pytest.raises(CommandError, match="already ADVISOR"):
        _create_key(tenant="newco", user="agent-1", role="SUPERVISOR")
    assert ApiKey.objects.count() == 1


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("Bearer mh_deadbeef_nope", "Unknown API key."),
        ("Bearer not-a-key", "Malformed API key."),
        ("Bearer ", "The Authorization header has no API key."),
    ],
)
def test_bad_keys_get_401_in_the_error_format(api_client, header, message):
    _create_key(tenant="newco", user="agent-1", role="ADVISOR")
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response.json() == {
        "error": {"code": "authentication_failed", "message": message, "fields": {}}
    }


def test_a_wrong_secret_with_a_real_prefix_is_refused(api_client):
    raw = _create_key(tenant="newco", user="agent-1", role="ADVISOR").strip()
    forged = raw[:-4] + ("AAAA" if not raw.endswith("AAAA") else "BBBB")
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {forged}")
    assert response.status_code == 401


def test_revoked_key_is_refused(api_client):
    raw = _create_key(tenant="newco", user="agent-1", role="ADVISOR").strip()
    api_key_revoke(key=ApiKey.objects.get())
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "This API key was revoked."


def test_expired_key_is_refused(api_client):
    raw = _create_key(tenant="newco", user="agent-1", role="ADVISOR", expires_days=1).strip()
    ApiKey.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "This API key has expired."
