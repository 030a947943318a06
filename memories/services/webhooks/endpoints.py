"""A tenant's webhook endpoints: registered and removed by its supervisors (the API, or
the admin), each change in the audit trail."""

from __future__ import annotations

import re

from django.db import transaction

from memories.errors import DomainError
from memories.models import Tenant, WebhookEndpoint, WebhookEvent
from memories.services.tenancy.audit import audit

# An http(s) URL with a host name (or IPv4 address) and optionally a port, path and query:
# the same text for Python and for the OpenAPI schema (ECMA-262), so no \s.
URL_PATTERN = r"^https?://[^\x00-\x20\x7f/?#:@\[\]]+(:[0-9]{1,5})?([/?#][^\x00-\x20\x7f]*)?$"
URL_MESSAGE = "Enter an http(s) URL: http(s)://host[:port][/path]."


def _checked_url(url: str) -> str:
    if not re.fullmatch(URL_PATTERN, url):
        raise DomainError(URL_MESSAGE, fields={"url": [URL_MESSAGE]})
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
    endpoint = WebhookEndpoint.objects.create(
        tenant=tenant,
        url=_checked_url(url),
        events=_checked_events(events),
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
