"""Tier moves. The core tier is injected into every prompt, so it has a hard size budget
per client (CORE_TIER_MAX_BYTES, 2 KB): no write path may exceed it."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memories.api_errors import DomainError
from memories.conf import setting
from memories.models import Memory, Tier
from memories.services.audit import audit


class CoreTierFull(DomainError):
    code = "core_tier_full"


def core_bytes(client_id, *, excluding=None) -> int:
    """UTF-8 bytes of the client's live, unexpired core memories."""
    now = timezone.now()
    memories = (
        Memory.objects.live()
        .filter(client_id=client_id, tier=Tier.CORE)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
    )
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


@transaction.atomic
def memory_set_tier(
    *,
    memory: Memory,
    tier: str,
    actor=None,
    actor_label: str = "",
    pin: bool = False,
    reason: str = "",
) -> Memory:
    """Move ``memory`` to ``tier``; ``pin`` keeps automatic moves away from it."""
    if tier not in Tier.values:
        raise DomainError(f"Unknown tier {tier!r}.", fields={"tier": ["Not a tier."]})
    # Lock the client's core tier against a concurrent move that would also fit alone.
    Memory.objects.select_for_update().filter(client_id=memory.client_id, tier=Tier.CORE).exists()
    if tier == Tier.CORE and memory.tier != Tier.CORE:
        ensure_core_room(memory.client_id, memory.content, excluding=memory.pk)
    previous = memory.tier
    Memory.objects.filter(pk=memory.pk).update(tier=tier, tier_pinned=pin or memory.tier_pinned)
    audit(
        tenant_id=memory.tenant_id,
        actor=actor,
        actor_label=actor_label,
        action="memory.set_tier",
        object_type="memory",
        object_id=memory.pk,
        reason=reason,
        data={"from": previous, "to": tier, "pinned": pin},
    )
    memory.refresh_from_db()
    return memory
