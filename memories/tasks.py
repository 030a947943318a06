"""django-q2 doorways: take ids, call a service, return counts."""

from memories.services.reembed import memories_reembed


def reembed(limit: int = 500) -> dict:
    return memories_reembed(limit=limit)
