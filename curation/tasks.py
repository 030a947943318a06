"""django-q2 doorways: take ids, call a service."""

from curation.services.review import conflict_reviews_open
from memories.services.jobs.runner import job_run, job_summary


def score_promotions(tenant_id: str | None = None) -> str:
    return job_summary(job_run("score_promotions", tenant_id=tenant_id))


def conflicts_found_receiver(sender, *, relation_ids: list[int], **kwargs) -> None:
    """memories' ``conflicts_found``, inside the write's transaction: open their reviews."""
    conflict_reviews_open(relation_ids=relation_ids)
