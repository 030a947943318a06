from datetime import UTC, datetime, time, timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone
from django_q.models import Schedule

from memories.conf import setting
from memories.services.jobs.runner import REGISTERED_SCHEDULES

DAY = 24 * 60


def schedules() -> dict[str, tuple[str, int, time | None]]:
    """name → (task, minutes between runs, first run at this UTC time or None for now):
    memories' own, and those the other apps registered with their jobs (``job_register``).
    The nightly jobs run in dependency order, so the promotion queue is ready for the
    supervisors' morning."""
    return {
        **REGISTERED_SCHEDULES,
        "webhooks": ("memories.tasks.webhooks", 1, None),  # retries of failed deliveries
        "reembed": ("memories.tasks.reembed", 5, None),
        "roll_up_accesses": ("memories.tasks.roll_up_accesses", 5, None),
        "summarize_episodes": ("memories.tasks.summarize_episodes", 60, None),
        "tiers": ("memories.tasks.tiers", 60, None),
        "ttl_sweep": ("memories.tasks.ttl_sweep", 180, None),
        "decay": ("memories.tasks.decay", DAY, time(1, 0)),
        "fusion": ("memories.tasks.fusion", DAY, time(1, 30)),
        "consolidate_episodes": ("memories.tasks.consolidate_episodes", DAY, time(2, 0)),
        "refresh_ranking": ("memories.tasks.refresh_ranking", DAY, time(3, 30)),
        "extract_principles": (
            "memories.tasks.extract_principles",
            int(setting("REVIEW_PRINCIPLE_AFTER_DAYS")) * DAY,
            time(2, 30),
        ),
    }


def _first_run(at: time | None):
    now = timezone.now()
    if at is None:
        return now
    first = datetime.combine(now.date(), at, tzinfo=UTC)
    return first if first > now else first + timedelta(days=1)


class Command(BaseCommand):
    help = "Declare the background schedules (idempotent: run it on every deploy)."

    def handle(self, *args, **opts):
        for name, (func, minutes, at) in schedules().items():
            _, created = Schedule.objects.update_or_create(
                name=name,
                defaults={
                    "func": func,
                    "schedule_type": Schedule.MINUTES,
                    "minutes": minutes,
                    "repeats": -1,
                },
                # Only a new schedule gets its first time: a redeploy keeps the next run.
                create_defaults={
                    "func": func,
                    "schedule_type": Schedule.MINUTES,
                    "minutes": minutes,
                    "repeats": -1,
                    "next_run": _first_run(at),
                },
            )
            self.stdout.write(
                f"{'created' if created else 'kept'} schedule {name}: every {minutes} min → {func}"
            )
