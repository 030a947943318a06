"""A date passing no longer hides a memory: only operational context leaves the live set
by time. The plans, deadlines and appointments that the TTL sweep moved to ``expired``
when their day went by come back as active memories (their vectors and text index were
kept; their ``expires_at`` now says when they became past), each with an audit entry.
Going back leaves them as they are: the sweep of the earlier code expires them again.
"""

from django.db import migrations

SWEPT = "expired: past its expiry"
RESTORED = "restored: a date passing makes a memory past, not gone"


def forward(apps, schema_editor):
    Memory = apps.get_model("memories", "Memory")
    AuditEntry = apps.get_model("memories", "AuditEntry")
    swept = Memory.objects.filter(status="expired", status_reason=SWEPT).exclude(kind="operational")
    while rows := list(swept.order_by("pk").values_list("pk", "tenant_id")[:500]):
        Memory.objects.filter(pk__in=[pk for pk, _ in rows]).update(
            status="active", invalidated_at=None, status_reason=RESTORED
        )
        AuditEntry.objects.bulk_create(
            AuditEntry(
                tenant_id=tenant_id,
                actor_label="migration",
                action="memory.restored",
                object_type="memory",
                object_id=str(pk),
                reason=RESTORED,
                data={"from": "expired", "to": "active"},
            )
            for pk, tenant_id in rows
        )


class Migration(migrations.Migration):
    dependencies = [("memories", "0017_tenant_embedding_space")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
