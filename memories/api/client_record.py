"""Agent API (v1) for a client's own record: its name and language (``PUT
/clients/{ref}/``: created when missing), and who advises it (``GET``/``PUT
/clients/{ref}/advisors/``, supervisors). The pages call the same services."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from memories import permissions
from memories.api import docs
from memories.api.base import BaseApiView, actor_label, tenant_of
from memories.api.fields import ClientRefField, StrictCharField, StrictSerializer
from memories.languages import CLIENT_LANGUAGES
from memories.models import Client
from memories.selectors.assignment import client_assignment
from memories.services.tenancy.clients import (
    LANGUAGE_MESSAGE,
    NAME_MAX,
    client_assignment_set,
    client_create,
    client_details_set,
)

_LANGUAGE_CHOICES = ["", *CLIENT_LANGUAGES]


class ClientInSerializer(StrictSerializer):
    display_name = StrictCharField(
        max_length=NAME_MAX,
        allow_blank=True,
        required=False,
        help_text="The client's name as people read it (spaces collapsed); empty for none. "
        "Left out: kept as it is (empty for a new client).",
    )
    language = serializers.ChoiceField(
        choices=_LANGUAGE_CHOICES,
        required=False,
        help_text="The language the client speaks (ISO 639-1), one memoryhub reads; empty "
        "for none. Left out: kept as it is.",
        error_messages={
            "invalid_choice": LANGUAGE_MESSAGE.replace("{value!r}", "'{input}'").replace(
                "{codes}", ", ".join(CLIENT_LANGUAGES)
            )
        },
    )


class ClientOutSerializer(serializers.Serializer):
    ref = serializers.CharField(help_text="The client's reference: `client` everywhere else.")
    display_name = serializers.CharField()
    language = serializers.CharField()
    created_at = serializers.DateTimeField()


def client_data(client: Client) -> dict:
    return {
        "ref": client.external_ref,
        "display_name": client.display_name,
        "language": client.language,
        "created_at": client.created_at,
    }


class AssignmentInSerializer(StrictSerializer):
    advisors = serializers.ListField(
        child=StrictCharField(max_length=150),
        max_length=500,
        help_text="Usernames of the tenant's advisors who advise the client; any other "
        "advisor stops advising it.",
    )
    groups = serializers.ListField(
        child=StrictCharField(max_length=150),
        max_length=100,
        required=False,
        default=list,
        help_text="Names of groups of the tenant's members whose advisors advise the client; "
        "left out: none.",
    )


class AssignmentOutSerializer(serializers.Serializer):
    client = serializers.CharField()
    advisors = serializers.ListField(child=serializers.CharField())
    groups = serializers.ListField(child=serializers.CharField())


CLIENT_EXAMPLE = {
    "ref": "laura-conti",
    "display_name": "Laura Conti",
    "language": "it",
    "created_at": "2026-12-01T09:00:00Z",
}
ASSIGNMENT_EXAMPLE = {"client": "laura-conti", "advisors": ["advisor"], "groups": ["milan-desk"]}


class ClientRecordApi(BaseApiView):
    """``PUT /clients/{ref}/``: the method ``ClientApi`` (erasure) hands on."""

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        request=ClientInSerializer,
        examples=[
            docs.request_example(
                "name and language", {"display_name": "Laura Conti", "language": "it"}
            )
        ],
        responses={
            **docs.ok(ClientOutSerializer, "the client, updated", CLIENT_EXAMPLE),
            **docs.ok(ClientOutSerializer, "the client, created", CLIENT_EXAMPLE, 201),
            **docs.BODY_ERRORS,
        },
        summary="Create a client, or set its display name and language",
        description="Whoever may write the client's memory sets them; a reference nobody has "
        "is created by whoever may create clients (an advisor who creates one advises it).",
        operation_id="client_put",
    )
    def put(self, request, ref):
        tenant = tenant_of(request)
        client = permissions.client_for_write(request.user, tenant, _ref_checked(ref))
        serializer = ClientInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        who = {"actor": request.user, "actor_label": actor_label(request)}
        if client is None:
            client, created = client_create(
                tenant=tenant, external_ref=ref, **serializer.validated_data, **who
            )
        else:
            client = client_details_set(client=client, **serializer.validated_data, **who)
            created = False
        return Response(client_data(client), status=201 if created else 200)


def _ref_checked(ref: str) -> str:
    try:
        return ClientRefField().run_validation(ref)
    except serializers.ValidationError as error:
        raise serializers.ValidationError({"ref": error.detail}) from error


class ClientAdvisorsApi(BaseApiView):
    """Who advises a client: supervisors read and choose."""

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        responses={
            **docs.ok(AssignmentOutSerializer, "who advises the client", ASSIGNMENT_EXAMPLE),
            **docs.errors(401, 403, 404, 429),
        },
        summary="Who advises a client (supervisors)",
        operation_id="client_advisors",
    )
    def get(self, request, ref):
        client = permissions.client_for_assignment(request.user, tenant_of(request), ref)
        return Response({"client": client.external_ref, **client_assignment(client).as_dict()})

    @extend_schema(
        parameters=[docs.CLIENT_REF_PARAMETER],
        request=AssignmentInSerializer,
        examples=[
            docs.request_example(
                "one advisor and a desk", {k: ASSIGNMENT_EXAMPLE[k] for k in ("advisors", "groups")}
            )
        ],
        responses={
            **docs.ok(AssignmentOutSerializer, "who advises the client now", ASSIGNMENT_EXAMPLE),
            **docs.BODY_ERRORS,
        },
        summary="Choose who advises a client (supervisors)",
        description="The advisors and groups given become exactly those who advise the "
        "client: each one added or removed is in the audit trail. An advisor sees an added "
        "client at once; one removed keeps the memory of their own sessions.",
        operation_id="client_advisors_set",
    )
    def put(self, request, ref):
        client = permissions.client_for_assignment(request.user, tenant_of(request), ref)
        serializer = AssignmentInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        assignment = client_assignment_set(
            client=client,
            **serializer.validated_data,
            actor=request.user,
            actor_label=actor_label(request),
        )
        return Response({"client": client.external_ref, **assignment.as_dict()})
