"""django-q2 doorways: take ids, call a service."""

from memories.services.jobs.runner import job_run, job_summary
from profiles.services.refresh import profiles_refresh_stale


def profiles_refresh(client_ids: list[str]) -> int:
    """Queued by writes (once per client until it runs): rebuild those still stale."""
    return profiles_refresh_stale(client_ids=client_ids)


def refresh_profiles(tenant_id: str | None = None) -> str:
    return job_summary(job_run("refresh_profiles", tenant_id=tenant_id))


def profiles_stale_receiver(sender, *, client_ids: list[str], **kwargs) -> None:
    """memories' ``profiles_stale``: queue one rebuild per write burst. Its success is not
    stored (a failure still is): a result row per write would be most of the worker's work
    (docs/decisions/0018)."""
    from django_q.tasks import async_task

    async_task("profiles.tasks.profiles_refresh", client_ids, save=False)
