from django.core.management.base import BaseCommand
from django_q.models import Schedule

# name → (task, minutes between runs). One place declares every schedule.
SCHEDULES = {
    "reembed": ("memories.tasks.reembed", 5),
    "roll_up_accesses": ("memories.tasks.roll_up_accesses", 5),
}


class Command(BaseCommand):
    help = "Declare the background schedules (idempotent: run it on every deploy)."

    def handle(self, *args, **opts):
        for name, (func, minutes) in SCHEDULES.items():
            _, created = Schedule.objects.update_or_create(
                name=name,
                defaults={
                    "func": func,
                    "schedule_type": Schedule.MINUTES,
                    "minutes": minutes,
                    "repeats": -1,
                },
            )
            self.stdout.write(
                f"{'created' if created else 'kept'} schedule {name}: every {minutes} min → {func}"
            )
