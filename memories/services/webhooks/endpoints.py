"""A tenant's webhook endpoints: registered and removed by its supervisors (the API, or
the admin), each change in the audit trail."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

import idna
from django.conf import settings
from django.db import transaction

from memories.conf import setting
from memories.errors import DomainError
from memories.models import Tenant, WebhookEndpoint, WebhookEvent
from memories.services.tenancy.audit import audit

# An http(s) URL with a host name (or IPv4 address) and optionally a port, path and query:
# the same text for Python and for the OpenAPI schema (ECMA-262), so no \s.
URL_PATTERN = r"^https?://[^\x00-\x20\x7f/?#:@\[\]]+(:[0-9]{1,5})?([/?#][^\x00-\x20\x7f]*)?$"
URL_MESSAGE = "Enter an http(s) URL: http(s)://host[:port][/path]."


def _refused(message: str) -> DomainError:
    return DomainError(message, fields={"url": [message]})


def webhook_url_checked(url: str) -> str:
    """``url`` if a delivery can be sent to it: http(s), a port from 1 to 65535, and a host
    that is an IP address (a public one unless ``MEMORYHUB_WEBHOOK_ALLOW_PRIVATE``) or a
    valid host name (IDNA 2008: no empty label, none over 63 characters, no character a
    name may not hold). A name's addresses are checked again at each attempt."""
    if not re.fullmatch(URL_PATTERN, url):
        raise _refused(URL_MESSAGE)
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise _refused("The port must be a number from 1 to 65535.")
    host = parts.hostname or ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            idna.encode(host, uts46=True)
        except (idna.IDNAError, UnicodeError) as exc:
            raise _refused(f"{host!r} is not a valid host name: {exc}.") from exc
        return url
    if not address.is_global and not settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE:
        raise _refused(
            f"{host} is a private address: deliveries go to public addresses only "
            "(MEMORYHUB_WEBHOOK_ALLOW_PRIVATE allows others)."
        )
    return url


def _checked_events(events: list[str]) -> list[str]:
    unknown = sorted(set(events) - set(WebhookEvent.values))
    if unknown or not events:
        message = (
            f"Unknown event(s): {', '.join(unknown)}." if unknown else "Name at least one event."
        )
        raise DomainError(
            f"{message} The events are {', '.join(WebhookEvent.values)}.",
            fields={"events": [message]},
        )
    return list(dict.fromkeys(events))


def webhook_endpoint_room(tenant: Tenant) -> None:
    """Refuse a new endpoint for a tenant that has ``WEBHOOK_MAX_ENDPOINTS`` already: each
    delivery sweep visits every endpoint, so their number is bounded per tenant."""
    limit = int(setting("WEBHOOK_MAX_ENDPOINTS"))
    if WebhookEndpoint.objects.filter(tenant=tenant).count() >= limit:
        raise DomainError(
            f"This tenant has {limit} webhook endpoints, the most it may have: "
            "remove one before adding another.",
            code="too_many_endpoints",
        )


@transaction.atomic
def webhook_endpoint_create(
    *,
    tenant: Tenant,
    url: str,
    events: list[str],
    description: str = "",
    actor=None,
    actor_label: str = "",
) -> WebhookEndpoint:
    url, events = webhook_url_checked(url), _checked_events(events)
    # The tenant's row, locked: two registrations at once cannot both pass the limit.
    Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
    webhook_endpoint_room(tenant)
    endpoint = WebhookEndpoint.objects.create(
        tenant=tenant,
        url=url,
        events=events,
        description=description,
    )
    audit(
        tenant_id=tenant.pk,
        actor=actor,
        actor_label=actor_label,
        action="webhook.create",
        object_type="webhook_endpoint",
        object_id=str(endpoint.pk),
        data={"events": endpoint.events},
    )
    return endpoint


@transaction.atomic
def webhook_endpoint_delete(
    *, endpoint: WebhookEndpoint, actor=None, actor_label: str = ""
) -> None:
    """Remove the endpoint and its deliveries: nothing more is sent to it."""
    tenant_id, endpoint_id = endpoint.tenant_id, str(endpoint.pk)
    endpoint.delete()
    audit(
        tenant_id=tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="webhook.delete",
        object_type="webhook_endpoint",
        object_id=endpoint_id,
    )
