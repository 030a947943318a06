"""django-q2 doorways: take ids, call a service, return counts."""

from memories.services.reembed import memories_reembed


def reembed(limit: int = 500) -> dict:
    return memories_reembed(limit=limit)


def roll_up_accesses() -> dict:
    from memories.services.lifecycle import accesses_roll_up

    return accesses_roll_up()
