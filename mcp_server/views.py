"""What ``/mcp/`` answers when Django itself gets the request: the site is served through
WSGI (``memoryhub.wsgi``), which cannot carry the MCP transport."""

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memories.api.errors import error_body


@csrf_exempt
def mcp_needs_asgi(request):
    return JsonResponse(
        error_body(
            "not_implemented",
            "MCP over HTTP is served by the ASGI application (memoryhub.asgi:application, "
            "with lifespan events on); this server runs the WSGI one. Use an ASGI server, "
            "or the stdio transport (manage.py mcp).",
        ),
        status=501,
    )
