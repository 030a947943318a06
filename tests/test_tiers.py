"""The core tier never holds more than 2 KB per client, whatever path writes to it."""

import pytest

from memories.models import AuditEntry, Memory
from memories.services.write.core_budget import CoreTierFull, core_bytes
from memories.services.write.lifecycle import memory_set_tier
from tests.support import factories

pytestmark = pytest.mark.django_db


def test_moving_into_core_respects_the_budget(personas, settings):
    settings.MEMORYHUB = {"CORE_TIER_MAX_BYTES": 100}
    first = factories.MemoryFactory.create(client=personas.client, content="x" * 60)
    second = factories.MemoryFactory.create(client=personas.client, content="é" * 30)  # 60 bytes
    memory_set_tier(memory=first, tier="core", actor=personas.supervisor)
    with pytest.raises(CoreTierFull, match="would hold 120 bytes; the limit is 100"):
        memory_set_tier(memory=second, tier="core", actor=personas.supervisor)
    second.refresh_from_db()
    assert second.tier == "recall"
    assert core_bytes(personas.client.pk) == 60
    assert AuditEntry.objects.filter(action="memory.set_tier").count() == 1


def test_writing_straight_into_core_respects_the_budget(personas, settings):
    settings.MEMORYHUB = {"CORE_TIER_MAX_BYTES": 50}
    factories.MemoryFactory.create(client=personas.client, content="y" * 40, tier="core")
    with pytest.raises(CoreTierFull):
        factories.MemoryFactory.create(client=personas.client, content="z" * 20, tier="core")
    assert Memory.objects.filter(client=personas.client).count() == 1


def test_superseded_and_other_clients_core_do_not_count(personas, settings):
    settings.MEMORYHUB = {"CORE_TIER_MAX_BYTES": 50}
    old = factories.MemoryFactory.create(client=personas.client, content="a" * 40, tier="core")
    Memory.objects.filter(pk=old.pk).update(status="superseded")
    factories.MemoryFactory.create(client=personas.parent, content="b" * 40, tier="core")
    factories.MemoryFactory.create(client=personas.client, content="c" * 40, tier="core")
    assert core_bytes(personas.client.pk) == 40


def test_pinning_and_moving_out(personas):
    memory = factories.MemoryFactory.create(client=personas.client, tier="core")
    memory = memory_set_tier(memory=memory, tier="archival", pin=True, reason="stale")
    assert (memory.tier, memory.tier_pinned) == ("archival", True)
