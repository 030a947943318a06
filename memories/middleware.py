"""Content-Security-Policy on every response (Django 5.2 has none built in; 6.0 adds
``django.middleware.csp`` with the same ``SECURE_CSP`` setting, which can replace this).

The pages run no inline script and no inline style (every script is a static file,
``static/memoryhub/app.js``; the API docs use drf-spectacular's split view, whose script is
a file too), so the policy allows only this origin's files. The Django admin keeps to that
as it is."""

from __future__ import annotations

from django.conf import settings

HEADER = "Content-Security-Policy"


def policy_text(policy: dict[str, list[str]]) -> str:
    """``{"script-src": ["'self'"], …}`` as the header says it: ``script-src 'self'; …``."""
    return "; ".join(" ".join([name, *sources]) for name, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.SECURE_CSP and HEADER not in response:
            response[HEADER] = policy_text(settings.SECURE_CSP)
        return response
