"""Memories stored while every provider was down get their vectors later."""

import pytest

from memories.models import Memory, MemoryEmbedding
from memories.services.embedding.reembed import memories_reembed
from tests.support import factories

pytestmark = pytest.mark.django_db


def test_waiting_memories_are_embedded_once(personas):
    waiting = [factories.MemoryFactory.create(client=personas.client) for _ in range(3)]
    assert all(m.needs_embedding for m in waiting)

    assert memories_reembed(limit=2)["embedded"] == 2
    assert memories_reembed(limit=2)["embedded"] == 1
    assert memories_reembed(limit=2) == {"embedded": 0, "failed": 0}
    assert MemoryEmbedding.objects.count() == 3
    assert Memory.objects.filter(needs_embedding=True).count() == 0
    embedding = MemoryEmbedding.objects.first()
    assert embedding is not None
    space = embedding.space
    assert (space.provider, space.dimension) == ("local", 384)


def test_a_failed_run_leaves_them_waiting(personas, settings, fake_provider):
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["voyage"]
    settings.VOYAGE_API_KEY, settings.VOYAGE_BASE_URL = "k", fake_provider.base_url
    from memories.services.embedding.providers import reset_chain

    reset_chain()
    factories.MemoryFactory.create(client=personas.client)
    fake_provider.script.append("500")
    assert memories_reembed() == {"embedded": 0, "failed": 1}
    assert Memory.objects.filter(needs_embedding=True).count() == 1
    assert memories_reembed()["embedded"] == 1
