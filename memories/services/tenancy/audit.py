"""The audit trail: who did what to which object, when and why (never content)."""

from __future__ import annotations

from memories.models import AuditEntry


def audit_entry(
    *,
    action: str,
    object_type: str,
    object_id,
    tenant_id=None,
    actor=None,
    actor_label: str = "",
    reason: str = "",
    data: dict | None = None,
) -> AuditEntry:
    """An unsaved entry, for callers that write many at once with bulk_create."""
    return AuditEntry(
        tenant_id=tenant_id,
        actor=actor,
        actor_label=actor_label or (str(actor) if actor else "system"),
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        reason=reason[:500],
        data=data or {},
    )


def audit(**fields) -> AuditEntry:
    entry = audit_entry(**fields)
    entry.save()
    return entry
