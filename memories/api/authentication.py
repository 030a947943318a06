from __future__ import annotations

from rest_framework import authentication, exceptions

from memories import permissions
from memories.services.tenancy.api_keys import InvalidApiKey, api_key_verify
from memoryhub import replica


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer mh_…``. ``request.auth`` is the ApiKey (tenant and user)."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        scheme, _, raw = header.partition(" ")
        if scheme.lower() != self.keyword.lower():
            return None
        raw = raw.strip()
        if not raw:
            raise exceptions.AuthenticationFailed("The Authorization header has no API key.")
        try:
            key = api_key_verify(raw)
        except InvalidApiKey as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from exc
        permissions.role_remember(key.user, key.tenant, key.member_role)
        replica.caller_wrote_at(key.written_lsn)
        return key.user, key

    def authenticate_header(self, request):
        return self.keyword
