"""django-q2 doorways: take ids, call a service."""

from memories.models import Client
from profiles.services.profile import profile_refresh


def profiles_refresh(client_ids: list[str]) -> int:
    clients = Client.objects.filter(pk__in=client_ids).select_related("tenant")
    for client in clients:
        profile_refresh(client=client)
    return len(clients)
