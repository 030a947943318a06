"""Moving an installation to a new embedding model: a tenant whose memories have vectors of
the old model keeps working in its space (searches, writes) while the reembed job fills
the new model's; once every memory has one there, the tenant moves to it."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from memories.models import EmbeddingSpace, MemoryEmbedding
from memories.services.embedding.providers import reset_chain
from memories.services.jobs.runner import job_run
from memories.services.retrieval import memories_search

# The job creates the new space and its index as it would in production: out of any
# transaction of the test (CREATE INDEX refuses a table with pending trigger events).
pytestmark = pytest.mark.django_db(transaction=True)


def _space(model: str) -> EmbeddingSpace:
    return EmbeddingSpace.objects.get(provider="local", model=model)


@pytest.fixture
def on_minilm(settings, personas, post_event):
    """A tenant that wrote with all-MiniLM-L6-v2, then the configured model changed (the
    migration pins such a tenant to the space most of its vectors are in)."""
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["local-minilm"]
    reset_chain()
    post_event("I prefer to be contacted by email.")
    post_event("My daughter Sofia starts university in Bologna next year.")
    tenant = personas.tenant
    tenant.embedding_space = _space("all-MiniLM-L6-v2")
    tenant.save(update_fields=["embedding_space"])
    settings.MEMORYHUB_EMBEDDING_PROVIDERS = ["local"]
    reset_chain()
    return tenant


def _spaces_of(memory_id) -> set[str]:
    return set(
        MemoryEmbedding.objects.filter(memory_id=memory_id).values_list("space__model", flat=True)
    )


def test_a_moving_tenant_searches_and_writes_in_its_old_space(on_minilm, personas, post_event):
    hits = memories_search(client=personas.client, query="How should we contact her?")
    assert hits and hits[0].memory.content == "I prefer to be contacted by email."
    assert hits[0].scores["semantic"] > 0  # the query was embedded with MiniLM

    answer = post_event("We keep a holiday flat in Marbella.")
    (memory,) = answer["memories"]
    assert _spaces_of(memory["id"]) == {"all-MiniLM-L6-v2"}
    assert not EmbeddingSpace.objects.filter(model="multilingual-e5-small").exists()


def test_the_reembed_job_fills_the_new_space_then_moves_the_tenant(on_minilm, personas):
    run = job_run("reembed")
    assert run.counts["backfilled"] == 2 and run.counts["moved_to_new_space"] == 1
    on_minilm.refresh_from_db()
    assert on_minilm.embedding_space is None
    e5 = _space("multilingual-e5-small")
    assert MemoryEmbedding.objects.filter(space=e5).count() == 2
    # The old vectors stay (nothing is deleted); searches now use the new model.
    assert MemoryEmbedding.objects.filter(space=_space("all-MiniLM-L6-v2")).count() == 2
    hits = memories_search(client=personas.client, query="How should we contact her?")
    assert hits[0].memory.content == "I prefer to be contacted by email."

    again = job_run("reembed")  # nothing left to do
    assert again.counts.get("backfilled", 0) == 0


def test_a_tenant_on_the_configured_models_space_is_left_alone(settings, personas, post_event):
    post_event("I prefer to be contacted by email.")
    tenant = personas.tenant
    tenant.embedding_space = _space("multilingual-e5-small")
    tenant.save(update_fields=["embedding_space"])
    run = job_run("reembed")
    assert run.counts.get("backfilled", 0) == 0 and run.counts["moved_to_new_space"] == 1
    tenant.refresh_from_db()
    assert tenant.embedding_space is None


def test_the_command_shows_what_each_tenant_waits_for(on_minilm):
    out = io.StringIO()
    call_command("embedding_spaces", stdout=out)
    text = out.getvalue()
    assert "configured model: local/multilingual-e5-small" in text
    assert "space local/all-MiniLM-L6-v2 (384): 2 vectors" in text
    assert f"tenant {on_minilm.slug}: searches local/all-MiniLM-L6-v2 (384); 2 memories" in text

    job_run("reembed")
    out = io.StringIO()
    call_command("embedding_spaces", stdout=out)
    assert "every tenant works in the configured model's space" in out.getvalue()


def test_a_moving_tenant_is_judged_by_its_old_models_thresholds(on_minilm, personas):
    # all-MiniLM-L6-v2 puts this question about nothing she said at cosine 0.27 from the
    # daughter's university: below MiniLM's floor (0.35), above the default model's (0.15).
    assert memories_search(client=personas.client, query="Does she like opera?") == []
    hits = memories_search(client=personas.client, query="How should we contact her?")
    assert hits and hits[0].memory.content == "I prefer to be contacted by email."
