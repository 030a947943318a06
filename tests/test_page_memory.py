"""A memory's page (evidence, versions, lineage) and the tier override, per persona."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memories import permissions
from memories.models import AuditEntry, Memory
from memories.selectors.lineage import lineage_of
from tests.support import factories
from tests.support.snapshot import take as db_state

pytestmark = pytest.mark.django_db

PERSONAS = ["advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir"]
READ = {
    "advisor": 200,
    "advisor2": 404,
    "outsider": 404,
    "supervisor": 200,
    "admin": 200,
    "client_user": 404,  # a recall memory: clients read their core tier only
    "heir": 404,
}
OVERRIDE = {**READ, "advisor": 403}


@pytest.fixture
def chain(personas):
    """email → phone (updates) → phone extended; a conflict with another, and a merge."""
    event = factories.EventFactory.create(client=personas.client, content="Email me, please.")
    first = factories.MemoryFactory.create(
        client=personas.client, content="Prefers email.", evidence=[event], status="superseded"
    )
    second = factories.MemoryFactory.create(client=personas.client, content="Prefers phone calls.")
    extra = factories.MemoryFactory.create(
        client=personas.client, content="Prefers phone calls after 5 pm on weekdays."
    )
    rival = factories.MemoryFactory.create(client=personas.client, content="Prefers letters.")
    merged = factories.MemoryFactory.create(
        client=personas.client, content="Likes the phone.", status="merged"
    )
    factories.RelationFactory.create(source=second, target=first, type="updates")
    factories.RelationFactory.create(source=extra, target=second, type="extends")
    factories.RelationFactory.create(source=rival, target=second, type="conflicts_with")
    factories.RelationFactory.create(source=merged, target=second, type="merged_into")
    return {"first": first, "second": second, "extra": extra, "rival": rival, "merged": merged}


@pytest.mark.parametrize("persona", PERSONAS)
def test_memory_page_permissions(client, personas, chain, persona):
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.get(reverse("memories:memory", args=[chain["second"].pk]))
    assert response.status_code == READ[persona]
    if response.status_code == 404:
        assert b"Prefers phone calls." not in response.content
    assert db_state() == before  # a read changes nothing either


def test_memory_page_shows_evidence_versions_and_lineage(client, personas, chain):
    client.force_login(personas.advisor)
    response = client.get(reverse("memories:memory", args=[chain["first"].pk]))
    assert "memories/memory_detail.html" in [t.name for t in response.templates]
    page = response.content.decode()
    assert "Email me, please." in page  # evidence
    # How it rests on the event, in words that read after it (not a dangling "Extracted from").
    assert "the memory was taken from this" in page and "Extracted from" not in page
    assert [v.content for v in response.context["versions"]] == [
        "Prefers email.",
        "Prefers phone calls.",
    ]
    lineage = response.context["lineage"]
    assert {n.memory.content for n in lineage.nodes} == {
        "Prefers email.",
        "Prefers phone calls.",
        "Prefers phone calls after 5 pm on weekdays.",
        "Prefers letters.",
        "Likes the phone.",
    }
    assert sorted(e.type for e in lineage.edges) == [
        "conflicts_with",
        "extends",
        "merged_into",
        "updates",
    ]
    assert len(re.findall(r'class="node[ "]', page)) == 5
    assert 'class="edge edge-merged_into"' in page
    assert "<svg" in page and "merged into" in page  # legend
    assert [r["label"] for r in response.context["relations"]] == ["is updated by"]


def test_lineage_only_draws_what_the_user_may_see(personas, chain):
    core = factories.MemoryFactory.create(client=personas.client, content="Core fact.", tier="core")
    factories.RelationFactory.create(source=core, target=chain["second"], type="derives")
    visible = permissions.memories_visible_to(personas.client_user, personas.tenant)
    lineage = lineage_of(core, visible=visible)
    assert [n.memory for n in lineage.nodes] == [core]
    assert lineage.edges == []


def test_lineage_layout_is_chronological_with_curves_in_the_gutter(personas, chain):
    lineage = lineage_of(chain["second"], visible=Memory.objects.all())
    ys = [n.y for n in lineage.nodes]
    assert ys == sorted(ys)
    assert [n.memory.created_at for n in lineage.nodes] == sorted(
        n.memory.created_at for n in lineage.nodes
    )
    assert all(e.path.startswith(f"M {lineage.gutter - 2} ") for e in lineage.edges)
    assert len({e.path.split(",")[-1] for e in lineage.edges}) == len(lineage.edges)
    assert lineage.height == 8 * 2 + 5 * 84 - 26


def test_client_reads_own_core_memory_without_evidence(client, personas):
    event = factories.EventFactory.create(client=personas.client, content="Afternoons are best.")
    core = factories.MemoryFactory.create(
        client=personas.client, content="Prefers afternoons.", tier="core", evidence=[event]
    )
    client.force_login(personas.client_user)
    response = client.get(reverse("memories:memory", args=[core.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Prefers afternoons." in page
    assert "Afternoons are best." not in page
    assert "Set tier" not in page


@pytest.mark.parametrize("persona", PERSONAS)
def test_tier_override_permissions(client, personas, chain, persona):
    memory = chain["second"]
    client.force_login(getattr(personas, persona))
    before = db_state()
    response = client.post(
        reverse("memories:memory-tier", args=[memory.pk]),
        {"tier": "core", "pin": "on", "reason": "Key preference."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == OVERRIDE[persona]
    memory.refresh_from_db()
    if response.status_code == 200:
        assert (memory.tier, memory.tier_pinned) == ("core", True)
        entry = AuditEntry.objects.get(action="memory.set_tier")
        assert (entry.actor, entry.reason, entry.data) == (
            getattr(personas, persona),
            "Key preference.",
            {"from": "recall", "to": "core", "pinned": True},
        )
        body = response.content.decode()
        assert "Moved from recall to core and pinned." in body
        assert 'id="memory-badges" hx-swap-oob="true"' in body
        assert '<span class="badge tier-core">core · pinned</span>' in body
    else:
        assert db_state() == before


def test_tier_override_that_does_not_fit_says_what_to_do(client, personas):
    factories.MemoryFactory.create(client=personas.client, content="x" * 2000, tier="core")
    memory = factories.MemoryFactory.create(client=personas.client, content="y" * 100)
    client.force_login(personas.supervisor)
    before = db_state()
    response = client.post(
        reverse("memories:memory-tier", args=[memory.pk]),
        {"tier": "core"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "Move a core memory to recall first." in response.content.decode()
    assert db_state() == before


def test_tier_override_without_htmx_redirects_with_a_message(client, personas, chain):
    client.force_login(personas.supervisor)
    url = reverse("memories:memory", args=[chain["second"].pk])
    response = client.post(
        reverse("memories:memory-tier", args=[chain["second"].pk]),
        {"tier": "archival"},
        follow=True,
    )
    assert response.redirect_chain == [(url, 302)]
    assert "Moved from recall to archival." in response.content.decode()


def test_tier_override_needs_post(client, personas, chain):
    client.force_login(personas.supervisor)
    response = client.get(reverse("memories:memory-tier", args=[chain["second"].pk]))
    assert response.status_code == 405


def test_a_memory_out_of_the_answers_has_no_tier_to_set(client, personas, chain):
    superseded = chain["first"]
    client.force_login(personas.supervisor)
    page = client.get(reverse("memories:memory", args=[superseded.pk])).content.decode()
    assert "Move to tier" not in page
    assert 'class="badge tier-' not in page.split('id="memory-badges"')[1].split("</div>")[0]
    before = db_state()
    response = client.post(
        reverse("memories:memory-tier", args=[superseded.pk]),
        {"tier": "core", "pin": "on"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "This memory is superseded: it is in no answer, so it has no tier to set." in (
        response.content.decode()
    )
    assert db_state() == before


def test_a_memory_updated_by_a_newer_statement_links_to_it(client, personas, chain):
    client.force_login(personas.supervisor)
    page = client.get(reverse("memories:memory", args=[chain["first"].pk])).content.decode()
    url = reverse("memories:memory", args=[chain["second"].pk])
    assert f'Why superseded: <a href="{url}">“Prefers phone calls.”</a>, a newer statement, ' in (
        page
    )


def test_a_plan_whose_day_has_gone_by_is_shown_as_past(client, personas):
    plan = factories.MemoryFactory.create(
        client=personas.client,
        content="I sign the mortgage on Friday.",
        category="goal",
        expires_at=timezone.now() - timedelta(days=1),
    )
    ahead = factories.MemoryFactory.create(
        client=personas.client,
        content="I sign the lease next month.",
        category="goal",
        expires_at=timezone.now() + timedelta(days=30),
    )
    client.force_login(personas.advisor)
    page = client.get(reverse("memories:memory", args=[plan.pk])).content.decode()
    assert "Past from" in page and '<span class="badge">past</span>' in page
    page = client.get(reverse("memories:memory", args=[ahead.pk])).content.decode()
    assert "Past from" in page and '<span class="badge">past</span>' not in page
