"""A client's own record: its name and language, and who advises it (advisors and groups).

The pages and the API call these same functions; each change leaves an audit entry that
names the fields or the people, never the values a person typed.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from guardian.shortcuts import assign_perm, remove_perm

from memories import permissions
from memories.errors import DomainError, NotFound
from memories.languages import CLIENT_LANGUAGES
from memories.models import Client, Role, Tenant
from memories.selectors.assignment import (
    Assignment,
    client_assignment,
    tenant_advisors,
    tenant_groups,
)
from memories.services.tenancy.audit import audit
from memories.services.tenancy.members import (
    ADVISE_CLIENT,
    client_assign_advisor,
    client_unassign_advisor,
)

NAME_MAX: int = Client._meta.get_field("display_name").max_length or 200
LANGUAGE_MESSAGE = (
    "{value!r} is not a language memoryhub reads: use one of {codes} (ISO 639-1), or an "
    "empty string for none."
)


def language_checked(value: str) -> str:
    """``value`` as stored (lower case), or a DomainError naming the languages there are."""
    code = value.strip().lower()
    if code and code not in CLIENT_LANGUAGES:
        message = LANGUAGE_MESSAGE.format(value=value, codes=", ".join(CLIENT_LANGUAGES))
        raise DomainError(message, fields={"language": [message]})
    return code


def _name_checked(value: str) -> str:
    name = " ".join(value.split())
    if "\x00" in name or len(name) > NAME_MAX:
        message = f"A display name is at most {NAME_MAX} characters, with no NUL."
        raise DomainError(message, fields={"display_name": [message]})
    return name


@transaction.atomic
def client_details_set(
    *,
    client: Client,
    display_name: str | None = None,
    language: str | None = None,
    actor,
    actor_label: str = "",
) -> Client:
    """Set ``client``'s display name and language (None: leave it as it is)."""
    changes = {}
    if display_name is not None:
        changes["display_name"] = _name_checked(display_name)
    if language is not None:
        changes["language"] = language_checked(language)
    changed = [f for f, v in changes.items() if getattr(client, f) != v]
    if not changed:
        return client
    for name in changed:
        setattr(client, name, changes[name])
    client.save(update_fields=changed)
    audit(
        tenant_id=client.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="client.update",
        object_type="client",
        object_id=client.pk,
        data={"fields": changed},
    )
    return client


@transaction.atomic
def client_create(
    *,
    tenant: Tenant,
    external_ref: str,
    display_name: str = "",
    language: str = "",
    actor,
    actor_label: str = "",
) -> tuple[Client, bool]:
    """The client ``external_ref`` with this name and language, created when missing (an
    advisor who creates one advises it, as when their agent first posts about it); one
    created at the same moment by another request is updated instead. The caller has
    asked ``permissions.client_for_write`` whether ``actor`` may."""
    fields = {"display_name": _name_checked(display_name), "language": language_checked(language)}
    client, created = Client.objects.get_or_create(
        tenant=tenant, external_ref=external_ref, defaults=fields
    )
    if not created:
        return client_details_set(
            client=client, **fields, actor=actor, actor_label=actor_label
        ), False
    audit(
        tenant_id=tenant.pk,
        actor=actor,
        actor_label=actor_label,
        action="client.create",
        object_type="client",
        object_id=client.pk,
        data={"fields": [f for f, v in fields.items() if v]},
    )
    if permissions.role_in(actor, tenant) == Role.ADVISOR:
        client_assign_advisor(client=client, advisor=actor, actor=actor, actor_label=actor_label)
    return client, True


@transaction.atomic
def client_assignment_set(
    *,
    client: Client,
    advisors: Iterable[str],
    groups: Iterable[str],
    actor,
    actor_label: str = "",
) -> Assignment:
    """Make ``advisors`` (usernames) and ``groups`` (names) exactly who advises ``client``:
    the ones missing are assigned, the others unassigned, each in the audit trail. Only
    the tenant's advisors and groups (``selectors.assignment``) can be chosen; a name that
    is not one of them refuses the whole change (404, as an unknown reference)."""
    wanted_users, wanted_groups = set(advisors), set(groups)
    users = {
        u.username: u for u in tenant_advisors(client.tenant_id).filter(username__in=wanted_users)
    }
    found = {g.name: g for g in tenant_groups(client.tenant_id).filter(name__in=wanted_groups)}
    fields = {}
    if unknown := sorted(wanted_users - users.keys()):
        fields["advisors"] = [f"{name!r} is not an advisor of this tenant." for name in unknown]
    if unknown := sorted(wanted_groups - found.keys()):
        fields["groups"] = [
            f"{name!r} is not a group of this tenant's members." for name in unknown
        ]
    if fields:
        raise NotFound(
            "Nothing was changed: " + " ".join(m for ms in fields.values() for m in ms),
            fields=fields,
        )
    # One change at a time per client: two supervisors' choices do not interleave.
    Client.objects.select_for_update().filter(pk=client.pk).exists()
    before = client_assignment(client)
    who = {"actor": actor, "actor_label": actor_label}
    for name in sorted(wanted_users - set(before.advisors)):
        client_assign_advisor(client=client, advisor=users[name], **who)
    gone = get_user_model().objects.filter(username__in=set(before.advisors) - wanted_users)
    for user in gone.order_by("username"):
        client_unassign_advisor(client=client, advisor=user, **who)
    for name in sorted(wanted_groups - set(before.groups)):
        _group_change(client, found[name], assign=True, **who)
    for group in Group.objects.filter(name__in=set(before.groups) - wanted_groups).order_by("name"):
        _group_change(client, group, assign=False, **who)
    return client_assignment(client)


def _group_change(client: Client, group: Group, *, assign: bool, actor, actor_label: str) -> None:
    (assign_perm if assign else remove_perm)(ADVISE_CLIENT, group, client)
    audit(
        tenant_id=client.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="client.assign_group" if assign else "client.unassign_group",
        object_type="client",
        object_id=client.pk,
        data={"group": group.name},
    )
