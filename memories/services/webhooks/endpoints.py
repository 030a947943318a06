"""A tenant's webhook endpoints: registered and removed by its supervisors (the API, or
the admin), each change in the audit trail."""

from __future__ import annotations

import ipaddress
import re
import socket
from http import HTTPStatus
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from memories.conf import setting
from memories.errors import Conflict, DomainError
from memories.models import Tenant, WebhookEndpoint, WebhookEvent
from memories.services.tenancy.audit import audit

# An http(s) URL with a host name or IPv4 address, optionally a port (1-65535), path and
# query: the same text for Python and for the OpenAPI schema (ECMA-262), so no \s and no
# \d (Python's matches any script's digits). A host name is ASCII (an internationalised one
# in its xn-- form), labels of 1 to 63 letters, digits and inner hyphens, 253 characters in
# all: what every resolver and HTTP client takes as it is.
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
URL_PATTERN = (
    f"^https?://(?=[^/?#:]{{1,253}}(?:[:/?#]|$))(?:{_LABEL}\\.)*{_LABEL}(?::{_PORT})?"
    "(?:[/?#][^\\x00-\\x20\\x7f]*)?$"
)
URL_MESSAGE = (
    "Enter an http(s) URL: http(s)://host[:port][/path], the host an ASCII name (an "
    "internationalised one in its xn-- form) or an IPv4 address, the port from 1 to 65535."
)


def _refused(message: str) -> DomainError:
    return DomainError(message, fields={"url": [message]})


def webhook_url_checked(url: str) -> str:
    """``url`` if a delivery can be sent to it (``URL_PATTERN``) and its host is not a
    private network's (``host_private``), unless ``MEMORYHUB_WEBHOOK_ALLOW_PRIVATE`` (403: a
    valid URL this installation does not send to). A name's addresses are checked again at
    each attempt: what a name resolves to may change."""
    if not re.fullmatch(URL_PATTERN, url):
        raise _refused(URL_MESSAGE)
    if settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE:
        return url
    if why := host_private(urlsplit(url).hostname or ""):
        message = (
            f"{why}: deliveries go to public addresses only "
            "(MEMORYHUB_WEBHOOK_ALLOW_PRIVATE allows others)."
        )
        raise PrivateAddress(message, fields={"url": [message]})
    return url


# Names of a private network whatever a resolver here answers: loopback (RFC 6761), mDNS
# (.local), the zones clouds and home routers answer for themselves
# (metadata.google.internal, .localdomain, .home.arpa), and wildcard DNS services that
# answer the address spelled in the name (127.0.0.1.nip.io) or loopback for any name
# (localtest.me, lvh.me). Refused by name: what they resolve to is only known from DNS,
# which a registration may not reach, and no receiver needs them.
PRIVATE_NAMES = (
    "localhost", "local", "internal", "localdomain", "home.arpa",
    "nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me",
)  # fmt: skip
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def host_private(host: str) -> str:
    """Why ``host`` (a URL's, lower case) is a private network's, or "" when it is not known
    to be: an IPv4 address in any form the system's resolver reads (inet_aton: "127.1",
    "0x7f000001", "2130706433", "0177.0.0.1" are all 127.0.0.1), a private name, or a name
    the resolver answers with a private address now."""
    address = numeric_address(host)
    if address is not None:
        if public_address(address):
            return ""
        spelled = "" if str(address) == host else f" ({address})"
        return f"{host} is a private address{spelled}"
    if any(host == name or host.endswith(f".{name}") for name in PRIVATE_NAMES):
        return f"{host} is a private network's name"
    for resolved in name_addresses(host):
        if not public_address(resolved):
            return f"{host} resolves to a private address ({resolved})"
    return ""


def numeric_address(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address ``host`` spells as the system's resolver reads it (so as a delivery
    would connect to it), or None for a name."""
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def name_addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """What the system's resolver answers for ``host`` now; none when it answers nothing (a
    name not there yet is taken: each attempt resolves it and refuses a private answer)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return [ipaddress.ip_address(info[4][0]) for info in infos]


def public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a delivery may connect to ``address``: global unicast (a multicast address is
    "global" to ``ipaddress``), and for an IPv6 address that carries an IPv4 one (mapped,
    6to4, NAT64), that one too: "::ffff:127.0.0.1" is loopback."""
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        carried = address.ipv4_mapped or address.sixtofour
        if carried is None and address in _NAT64:
            carried = ipaddress.IPv4Address(address.packed[-4:])
        if carried is not None:
            return public_address(carried)
    return True


class PrivateAddress(DomainError):
    status_code = HTTPStatus.FORBIDDEN
    code = "private_address"


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
        raise Conflict(
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
