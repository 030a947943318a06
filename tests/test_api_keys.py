import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from memories.models import ApiKey, AuditEntry, Event, Membership, Memory, Role, Tenant
from memories.services.tenancy.api_keys import api_key_revoke
from tests.support import factories

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


# --- managing keys: manage.py api_keys and the admin ---


def _api_keys(*args) -> str:
    out = io.StringIO()
    call_command("api_keys", *args, stdout=out)
    return out.getvalue()


def test_api_keys_list_shows_prefix_owner_and_state_never_the_secret():
    active = _create_key(tenant="newco", user="agent-1", role="ADVISOR").strip()
    revoked = _create_key(tenant="newco", user="agent-2", role="ADVISOR").strip()
    expired = _create_key(tenant="oldco", user="agent-3", role="SUPERVISOR", expires_days=1)
    api_key_revoke(key=ApiKey.objects.get(prefix=revoked.split("_")[1]))
    ApiKey.objects.filter(prefix=expired.split("_")[1]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    lines = _api_keys("list").splitlines()
    assert lines[0].split() == [
        "prefix", "tenant", "user", "name", "state", "created", "expires", "last", "used",
    ]  # fmt: skip
    states = {
        line.split()[0]: (line.split()[1], line.split()[2], line.split()[4]) for line in lines[1:]
    }
    assert states == {
        active.split("_")[1]: ("newco", "agent-1", "active"),
        revoked.split("_")[1]: ("newco", "agent-2", "revoked"),
        expired.split("_")[1]: ("oldco", "agent-3", "expired"),
    }
    output = _api_keys("list")
    for raw in (active, revoked, expired):
        assert raw.strip().split("_", 2)[2] not in output
    only_newco = _api_keys("list", "--tenant", "newco")
    assert "oldco" not in only_newco and "agent-1" in only_newco
    assert [line.split()[0] for line in _api_keys("list", "--active").splitlines()[1:]] == [
        active.split("_")[1]
    ]


def test_api_keys_list_refuses_an_unknown_tenant():
    with pytest.raises(CommandError, match="no tenant 'nope'"):
        _api_keys("list", "--tenant", "nope")


def test_api_keys_revoke_by_prefix_then_the_key_gets_401(api_client):
    raw = _create_key(tenant="newco", user="agent-1", role="ADVISOR").strip()
    prefix = raw.split("_")[1]
    assert api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    assert _api_keys("revoke", prefix, "--reason", "leaked") == (
        f"key {prefix} of agent-1 in newco revoked\n"
    )
    response = api_client.get(HEALTH, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "This API key was revoked."
    entry = AuditEntry.objects.get(action="api_key.revoke")
    assert (entry.object_id, entry.reason) == (prefix, "leaked")
    assert "already revoked" in _api_keys("revoke", prefix)
    assert AuditEntry.objects.filter(action="api_key.revoke").count() == 1


def test_api_keys_revoke_refuses_an_unknown_prefix():
    with pytest.raises(CommandError, match="no API key with prefix 'deadbeef'"):
        _api_keys("revoke", "deadbeef")


def test_revoked_and_expired_keys_get_401_on_every_endpoint(api_client, personas):
    revoked_key, revoked = factories.api_key_for(personas.supervisor, personas.tenant)
    api_key_revoke(key=revoked_key)
    expired_key, expired = factories.api_key_for(personas.supervisor, personas.tenant)
    ApiKey.objects.filter(pk=expired_key.pk).update(expires_at=timezone.now())
    before = (Event.objects.count(), Memory.objects.count())
    for raw, message in (
        (revoked, "This API key was revoked."),
        (expired, "This API key has expired."),
    ):
        auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
        for response in (
            api_client.get("/api/v1/tools/", **auth),
            api_client.post(
                "/api/v1/events/", {"client": "emma", "content": "Hi."}, format="json", **auth
            ),
            api_client.post(
                "/api/v1/search/", {"client": "emma", "query": "x"}, format="json", **auth
            ),
        ):
            assert response.status_code == 401
            assert response.json()["error"] == {
                "code": "authentication_failed",
                "message": message,
                "fields": {},
            }
            assert response["WWW-Authenticate"] == "Bearer"
    assert (Event.objects.count(), Memory.objects.count()) == before


def test_a_key_of_an_inactive_user_gets_401(api_client, personas):
    _, raw = factories.api_key_for(personas.advisor, personas.tenant)
    personas.advisor.is_active = False
    personas.advisor.save()
    response = api_client.get("/api/v1/tools/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "The user of this API key is inactive."


def test_admin_lists_keys_with_state_and_expiry_never_the_secret(client, personas):
    key, raw = factories.api_key_for(personas.advisor, personas.tenant)
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() + timedelta(days=3))
    client.force_login(personas.admin)
    page = client.get(reverse("admin:memories_apikey_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    assert key.prefix in html and "active" in html
    assert raw.split("_", 2)[2] not in html and key.hashed_secret not in html
    change = client.get(reverse("admin:memories_apikey_change", args=[key.pk])).content.decode()
    assert key.hashed_secret not in change and raw.split("_", 2)[2] not in change
    assert 'name="revoked_at"' not in change  # revoking is the audited action, not a field
    assert 'name="expires_at_0"' in change


def test_admin_revoke_action_revokes_and_audits(client, personas, api_client):
    key, raw = factories.api_key_for(personas.advisor, personas.tenant)
    _, other_raw = factories.api_key_for(personas.advisor, personas.tenant)
    client.force_login(personas.admin)
    response = client.post(
        reverse("admin:memories_apikey_changelist"),
        {"action": "revoke", "_selected_action": [key.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 API key(s) revoked" in response.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None
    entry = AuditEntry.objects.get(action="api_key.revoke")
    assert (entry.object_id, entry.actor) == (key.prefix, personas.admin)
    assert api_client.get("/api/v1/tools/", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    assert (
        api_client.get("/api/v1/tools/", HTTP_AUTHORIZATION=f"Bearer {other_raw}").status_code
        == 200
    )
