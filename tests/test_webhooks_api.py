"""/api/v1/webhooks/: supervisors register, list and remove their tenant's endpoints;
everyone else is refused and nothing changes."""

import ipaddress

import pytest

from memories.models import AuditEntry, WebhookEndpoint
from memories.services.webhooks import endpoints
from memories.services.webhooks.endpoints import URL_MESSAGE, name_addresses
from tests.support import factories
from tests.support.snapshot import take

pytestmark = pytest.mark.django_db

BODY = {"url": "https://crm.example.com/hooks", "events": ["memory.added", "client.erased"]}


def _as(api_client, personas, persona):
    user = getattr(personas, persona)
    tenant = personas.other_tenant if persona == "outsider" else personas.tenant
    _, key = factories.api_key_for(user, tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api_client


def test_register_list_and_remove(api_client, personas):
    api = _as(api_client, personas, "supervisor")
    created = api.post("/api/v1/webhooks/", {**BODY, "description": "CRM"}, format="json")
    assert created.status_code == 201
    body = created.json()
    endpoint = WebhookEndpoint.objects.get()
    assert body == {
        "id": str(endpoint.pk),
        "url": "https://crm.example.com/hooks",
        "events": ["memory.added", "client.erased"],
        "description": "CRM",
        "active": True,
        "created_at": endpoint.created_at.isoformat(),
        "secret": endpoint.secret,
    }
    assert body["secret"].startswith("whsec_")
    listed = api.get("/api/v1/webhooks/").json()["results"]
    assert listed == [{k: v for k, v in body.items() if k != "secret"}]
    removed = api.delete(f"/api/v1/webhooks/{endpoint.pk}/")
    assert removed.status_code == 200
    assert not WebhookEndpoint.objects.exists()
    assert sorted(
        AuditEntry.objects.filter(object_type="webhook_endpoint").values_list("action", flat=True)
    ) == ["webhook.create", "webhook.delete"]


@pytest.mark.parametrize(
    ("persona", "listing", "creating", "removing"),
    [
        ("supervisor", 200, 201, 200),
        ("admin", 200, 201, 200),
        ("advisor", 403, 403, 404),
        ("client_user", 403, 403, 404),
        ("heir", 403, 403, 404),
        ("outsider", 403, 403, 404),
    ],
)
def test_who_may_manage_them(api_client, personas, persona, listing, creating, removing):
    ours = factories.WebhookEndpointFactory.create(tenant=personas.tenant)
    api = _as(api_client, personas, persona)
    listed = api.get("/api/v1/webhooks/")
    before = take()  # after the key's first use (which notes it)
    assert listed.status_code == listing
    if listing == 200:
        assert [e["id"] for e in listed.json()["results"]] == [str(ours.pk)]
    assert api.post("/api/v1/webhooks/", BODY, format="json").status_code == creating
    assert api.delete(f"/api/v1/webhooks/{ours.pk}/").status_code == removing
    if creating == 403:
        assert take().changes(before) == []
    assert WebhookEndpoint.objects.filter(pk=ours.pk).exists() is (removing != 200)


def test_another_tenants_supervisor_sees_none_of_them(api_client, personas):
    ours = factories.WebhookEndpointFactory.create(tenant=personas.tenant)
    theirs = factories.UserFactory.create(username="globex-supervisor")
    factories.MembershipFactory.create(tenant=personas.other_tenant, user=theirs, role="SUPERVISOR")
    _, key = factories.api_key_for(theirs, personas.other_tenant)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert api_client.get("/api/v1/webhooks/").json() == {"results": []}
    assert api_client.delete(f"/api/v1/webhooks/{ours.pk}/").status_code == 404
    assert WebhookEndpoint.objects.filter(pk=ours.pk).exists()


PRIVATE_MESSAGE = (
    "{} is a private address: deliveries go to public addresses only "
    "(MEMORYHUB_WEBHOOK_ALLOW_PRIVATE allows others)."
)


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        (
            {**BODY, "events": ["memory.deleted"]},
            {"events[0]": ['"memory.deleted" is not a valid choice.']},
        ),
        ({**BODY, "events": []}, {"events": ["This list may not be empty."]}),
        ({**BODY, "url": "ftp://crm.example.com/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "not a url"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "https://[::1/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "secret": "mine"}, {"secret": ["Unknown field."]}),
        # Hosts httpx cannot send to (they used to stop every tenant's deliveries), and
        # ports that do not exist.
        ({**BODY, "url": "http://a..b:8080/x"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": f"https://{'x' * 64}.example.com/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "https://crm\u2028.example.com/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "https://exämple.com/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "https://crm.example.com:99999/hooks"}, {"url": [URL_MESSAGE]}),
        ({**BODY, "url": "https://crm.example.com:0/hooks"}, {"url": [URL_MESSAGE]}),
    ],
)
def test_bad_registrations_are_refused(api_client, personas, body, fields):
    api = _as(api_client, personas, "supervisor")
    answer = api.post("/api/v1/webhooks/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"] == fields
    assert not WebhookEndpoint.objects.exists()


def test_a_url_of_the_stated_length_is_taken_and_one_longer_is_refused(api_client, personas):
    api = _as(api_client, personas, "supervisor")
    base = "https://crm.example.com/hooks?k="
    at_limit = base + "v" * (2000 - len(base))
    answer = api.post("/api/v1/webhooks/", {**BODY, "url": at_limit}, format="json")
    assert answer.status_code == 201, answer.json()
    assert WebhookEndpoint.objects.get().url == at_limit
    longer = api.post("/api/v1/webhooks/", {**BODY, "url": at_limit + "v"}, format="json")
    assert longer.status_code == 400
    assert list(longer.json()["error"]["fields"]) == ["url"]
    assert WebhookEndpoint.objects.count() == 1


@pytest.mark.parametrize("address", ["127.0.0.1", "169.254.169.254", "10.0.0.7"])
def test_a_private_address_is_refused_unless_allowed(api_client, personas, address):
    api = _as(api_client, personas, "supervisor")
    url = f"http://{address}:8080/hooks"
    answer = api.post("/api/v1/webhooks/", {**BODY, "url": url}, format="json")
    assert answer.status_code == 403
    assert answer.json()["error"] == {
        "code": "private_address",
        "message": PRIVATE_MESSAGE.format(address),
        "fields": {"url": [PRIVATE_MESSAGE.format(address)]},
    }
    assert not WebhookEndpoint.objects.exists()


REFUSED = (
    "{}: deliveries go to public addresses only (MEMORYHUB_WEBHOOK_ALLOW_PRIVATE allows others)."
)


@pytest.mark.parametrize(
    ("host", "why"),
    [
        # IPv4 addresses as the system's resolver reads them (inet_aton), as a delivery
        # would connect to them.
        ("127.1", "127.1 is a private address (127.0.0.1)"),
        ("0x7f000001", "0x7f000001 is a private address (127.0.0.1)"),
        ("2130706433", "2130706433 is a private address (127.0.0.1)"),
        ("0177.0.0.1", "0177.0.0.1 is a private address (127.0.0.1)"),
        ("0", "0 is a private address (0.0.0.0)"),
        ("10.1", "10.1 is a private address (10.0.0.1)"),
        ("0xa9.254.169.254", "0xa9.254.169.254 is a private address (169.254.169.254)"),
        ("224.0.0.1", "224.0.0.1 is a private address"),
        ("255.255.255.255", "255.255.255.255 is a private address"),
        # Names of a private network, and wildcard DNS that answers what the name spells.
        ("localhost", "localhost is a private network's name"),
        ("LocalHost", "localhost is a private network's name"),
        ("api.localhost", "api.localhost is a private network's name"),
        ("metadata.google.internal", "metadata.google.internal is a private network's name"),
        ("printer.local", "printer.local is a private network's name"),
        ("127.0.0.1.nip.io", "127.0.0.1.nip.io is a private network's name"),
        ("10-0-0-1.sslip.io", "10-0-0-1.sslip.io is a private network's name"),
        ("a.127.0.0.1.xip.io", "a.127.0.0.1.xip.io is a private network's name"),
        ("app.localtest.me", "app.localtest.me is a private network's name"),
    ],
)
def test_loopback_and_internal_hosts_in_any_form_are_refused(api_client, personas, host, why):
    api = _as(api_client, personas, "supervisor")
    api.get("/api/v1/webhooks/")
    before = take()  # after the key's first use (which notes it)

    answer = api.post("/api/v1/webhooks/", {**BODY, "url": f"http://{host}:8080/h"}, format="json")

    assert answer.status_code == 403
    message = REFUSED.format(why)
    assert answer.json()["error"] == {
        "code": "private_address",
        "message": message,
        "fields": {"url": [message]},
    }
    assert take().changes(before) == []


def test_a_name_that_resolves_to_a_private_address_is_refused(api_client, personas, monkeypatch):
    answers = {
        "crm.example.com": ["93.184.216.34"],
        "intranet.example.com": ["93.184.216.34", "10.1.2.3"],
        "mapped.example.com": ["::ffff:127.0.0.1"],
        "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
    }
    monkeypatch.setattr(
        endpoints,
        "name_addresses",
        lambda host: [ipaddress.ip_address(a) for a in answers.get(host, [])],
    )
    mapped = ipaddress.ip_address("::ffff:127.0.0.1")
    api = _as(api_client, personas, "supervisor")
    refused = {}
    for host in answers:
        answer = api.post("/api/v1/webhooks/", {**BODY, "url": f"https://{host}/h"}, format="json")
        refused[host] = (answer.status_code, answer.json().get("error", {}).get("message"))
    assert refused == {
        "crm.example.com": (201, None),
        "intranet.example.com": (
            403,
            REFUSED.format("intranet.example.com resolves to a private address (10.1.2.3)"),
        ),
        "mapped.example.com": (
            403,
            # Written as this Python writes it ("::ffff:7f00:1" before 3.13).
            REFUSED.format(f"mapped.example.com resolves to a private address ({mapped})"),
        ),
        "nat64.example.com": (
            403,
            REFUSED.format("nat64.example.com resolves to a private address (64:ff9b::a9fe:a9fe)"),
        ),
    }
    assert [e.url for e in WebhookEndpoint.objects.all()] == ["https://crm.example.com/h"]


def test_the_resolver_is_asked_as_a_delivery_asks_it():
    """The real lookup (the suite's stands in for it elsewhere), on what needs no DNS."""
    assert name_addresses("127.0.0.1") == [ipaddress.ip_address("127.0.0.1")]
    assert name_addresses(f"{'x' * 64}.example.com") == []  # no label is that long


def test_an_operator_may_allow_private_addresses(api_client, personas, settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    api = _as(api_client, personas, "supervisor")
    answer = api.post("/api/v1/webhooks/", {**BODY, "url": "http://10.0.0.7/hooks"}, format="json")
    assert answer.status_code == 201


def test_an_internationalised_name_is_taken_in_its_xn_form(api_client, personas):
    api = _as(api_client, personas, "supervisor")
    url = "https://xn--exmple-cua.com:8443/hooks"
    assert api.post("/api/v1/webhooks/", {**BODY, "url": url}, format="json").status_code == 201


def test_a_tenant_has_a_bounded_number_of_endpoints(api_client, personas, settings):
    settings.MEMORYHUB = {"WEBHOOK_MAX_ENDPOINTS": 2}
    api = _as(api_client, personas, "supervisor")
    for n in range(2):
        url = f"https://crm.example.com/hooks/{n}"
        assert api.post("/api/v1/webhooks/", {**BODY, "url": url}, format="json").status_code == 201
    third = api.post("/api/v1/webhooks/", BODY, format="json")
    assert third.status_code == 409
    assert third.json()["error"] == {
        "code": "too_many_endpoints",
        "message": "This tenant has 2 webhook endpoints, the most it may have: "
        "remove one before adding another.",
        "fields": {},
    }
    assert WebhookEndpoint.objects.filter(tenant=personas.tenant).count() == 2


def test_private_addresses_are_refused_by_default_even_on_the_embedded_database():
    """The setting as a fresh ``make run`` reads it (debug on, no DATABASE_URL)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "MEMORYHUB_WEBHOOK_ALLOW_PRIVATE"}
    env.pop("DATABASE_URL", None)
    env["MEMORYHUB_DEBUG"] = "1"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
            "'memoryhub.settings'); from django.conf import settings; "
            "print(settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE)",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == "False"
