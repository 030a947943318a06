"""Migration 0018: the plans the TTL sweep expired when their day went by come back as
active (past) memories; operational context it expired, and anything else, stays as it
is."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import AuditEntry, Memory
from tests.support import factories
from tests.support.migrations import latest, migrate

pytestmark = pytest.mark.django_db

BEFORE = ("memories", "0017_tenant_embedding_space")
SWEPT = "expired: past its expiry"


def test_swept_plans_come_back_and_operational_context_stays_gone(personas):
    gone_by = timezone.now() - timedelta(days=2)

    def swept(content, **fields):
        memory = factories.MemoryFactory.create(
            client=personas.client, content=content, expires_at=gone_by, **fields
        )
        Memory.objects.filter(pk=memory.pk).update(
            status="expired", invalidated_at=gone_by, status_reason=SWEPT
        )
        return memory

    plan = swept("I plan to sign the mortgage on Friday.", category="goal")
    job = swept("Deploy job 17 is running.", kind="operational")
    forgotten = factories.MemoryFactory.create(client=personas.client, content="Likes golf.")
    Memory.objects.filter(pk=forgotten.pk).update(
        status="expired", status_reason="expired: operational context older than its TTL"
    )

    migrate(BEFORE)
    migrate(latest())

    statuses = dict(Memory.objects.values_list("pk", "status"))
    assert (statuses[plan.pk], statuses[job.pk], statuses[forgotten.pk]) == (
        "active",
        "expired",
        "expired",
    )
    plan.refresh_from_db()
    assert plan.invalidated_at is None and plan.is_past(timezone.now())
    [entry] = AuditEntry.objects.filter(action="memory.restored")
    assert entry.object_id == str(plan.pk)
