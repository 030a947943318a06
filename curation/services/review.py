"""The review queue's writes."""

from __future__ import annotations

from django.db import transaction

from curation.models import ReviewItem
from memories.models import Relation, RelationType
from memories.services.audit import audit


@transaction.atomic
def conflict_reviews_open(*, relation_ids: list[int]) -> list[ReviewItem]:
    """One open conflict review per ``conflicts_with`` relation; safe to run twice."""
    items = []
    relations = Relation.objects.filter(
        pk__in=relation_ids, type=RelationType.CONFLICTS_WITH
    ).select_related("source", "target")
    for relation in relations:
        new, old = relation.source, relation.target
        item, created = ReviewItem.objects.get_or_create(
            type=ReviewItem.Type.CONFLICT,
            memory=new,
            other_memory=old,
            state=ReviewItem.State.OPEN,
            defaults={
                "tenant_id": new.tenant_id,
                "client_id": new.client_id,
                "summary": "A new statement contradicts what memory holds.",
            },
        )
        if created:
            audit(
                tenant_id=new.tenant_id,
                action="review.open",
                object_type="review_item",
                object_id=str(item.pk),
                data={"type": "conflict", "memory": str(new.pk), "other": str(old.pk)},
            )
        items.append(item)
    return items
