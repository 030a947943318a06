"""django-q2 doorways: take ids, call a service, return what it did.

Each background job runs through ``job_run`` (a JobRun row per run); the schedules in
``setup_schedules`` point here. Jobs of other apps have their doorways in those apps.
"""

from memories.services.jobs.runner import job_run, job_summary


def _job(name: str, tenant_id: str | None) -> str:
    return job_summary(job_run(name, tenant_id=tenant_id))


def reembed(tenant_id: str | None = None) -> str:
    return _job("reembed", tenant_id)


def ttl_sweep(tenant_id: str | None = None) -> str:
    return _job("ttl_sweep", tenant_id)


def decay(tenant_id: str | None = None) -> str:
    return _job("decay", tenant_id)


def fusion(tenant_id: str | None = None) -> str:
    return _job("fusion", tenant_id)


def summarize_episodes(tenant_id: str | None = None) -> str:
    return _job("summarize_episodes", tenant_id)


def consolidate_episodes(tenant_id: str | None = None) -> str:
    return _job("consolidate_episodes", tenant_id)


def extract_principles(tenant_id: str | None = None) -> str:
    return _job("extract_principles", tenant_id)


def tiers(tenant_id: str | None = None) -> str:
    return _job("tiers", tenant_id)


def refresh_ranking(tenant_id: str | None = None) -> str:
    return _job("refresh_ranking", tenant_id)


def roll_up_accesses(tenant_id: str | None = None) -> str:
    return _job("roll_up_accesses", tenant_id)


def webhooks(tenant_id: str | None = None) -> str:
    return _job("webhooks", tenant_id)


def webhook_deliveries_send(delivery_ids: list[str]) -> dict:
    """The deliveries a write made, sent as soon as it committed (``webhooks`` retries)."""
    from memories.services.webhooks.delivery import deliveries_send

    return deliveries_send(delivery_ids)
