"""What the top bar offers the signed-in user (computed only if a template asks)."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from memories import permissions


def _navigation(user) -> dict:
    tenants = list(permissions.tenants_visible_to(user))
    return {
        "clients": any(permissions.can_browse_clients(user, t) for t in tenants),
        "review": any(permissions.can_decide_review(user, t) for t in tenants),
        "mine": permissions.own_client(user) is not None,
        "admin": user.is_staff,
    }


def navigation(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav": {}}
    return {"nav": SimpleLazyObject(lambda: _navigation(user))}
