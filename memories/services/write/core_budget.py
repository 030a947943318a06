"""The core tier's budget. The core tier is injected into every prompt, so it has a hard
size budget per client (CORE_TIER_MAX_BYTES, 2 KB): no write path may exceed it."""

from __future__ import annotations

from memories.conf import setting
from memories.errors import DomainError
from memories.models import Memory, Tier


class CoreTierFull(DomainError):
    code = "core_tier_full"


def core_bytes(client_id, *, excluding=None) -> int:
    """UTF-8 bytes of the client's live, unexpired core memories."""
    memories = Memory.objects.current().filter(client_id=client_id, tier=Tier.CORE)
    if excluding is not None:
        memories = memories.exclude(pk=excluding)
    return sum(len(text.encode()) for text in memories.values_list("content", flat=True))


def ensure_core_room(client_id, content: str, *, excluding=None) -> None:
    limit = int(setting("CORE_TIER_MAX_BYTES"))
    total = core_bytes(client_id, excluding=excluding) + len(content.encode())
    if total > limit:
        raise CoreTierFull(
            f"The core tier of this client would hold {total} bytes; the limit is {limit}. "
            "Move a core memory to recall first."
        )
