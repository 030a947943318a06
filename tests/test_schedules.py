import io

import pytest
import time_machine
from django.core.management import call_command
from django_q.models import Schedule

from memories.services.jobs.runner import JOBS

pytestmark = pytest.mark.django_db


def test_setup_schedules_is_idempotent_and_keeps_the_next_run():
    with time_machine.travel("2026-03-02 12:00Z", tick=False):
        call_command("setup_schedules", stdout=io.StringIO())
        fusion = Schedule.objects.get(name="fusion")
        assert fusion.next_run.isoformat() == "2026-03-03T01:30:00+00:00"
    with time_machine.travel("2026-03-05 12:00Z", tick=False):
        out = io.StringIO()
        call_command("setup_schedules", stdout=out)
    assert "kept schedule fusion" in out.getvalue()
    assert Schedule.objects.get(name="fusion").next_run == fusion.next_run
    assert list(Schedule.objects.order_by("name").values_list("name", "func", "minutes")) == [
        ("consolidate_episodes", "memories.tasks.consolidate_episodes", 1440),
        ("decay", "memories.tasks.decay", 1440),
        ("extract_principles", "memories.tasks.extract_principles", 7 * 1440),
        ("fusion", "memories.tasks.fusion", 1440),
        ("reembed", "memories.tasks.reembed", 5),
        ("refresh_profiles", "profiles.tasks.refresh_profiles", 10),
        ("refresh_ranking", "memories.tasks.refresh_ranking", 1440),
        ("roll_up_accesses", "memories.tasks.roll_up_accesses", 5),
        ("score_promotions", "curation.tasks.score_promotions", 1440),
        ("summarize_episodes", "memories.tasks.summarize_episodes", 60),
        ("tiers", "memories.tasks.tiers", 60),
        ("ttl_sweep", "memories.tasks.ttl_sweep", 180),
        ("webhooks", "memories.tasks.webhooks", 1),
    ]


def test_every_job_is_scheduled_and_every_doorway_exists():
    from django.utils.module_loading import import_string

    call_command("setup_schedules", stdout=io.StringIO())
    funcs = set(Schedule.objects.values_list("func", flat=True))
    for func in funcs:
        assert callable(import_string(func))
    scheduled = {func.rsplit(".", 1)[1] for func in funcs}
    assert set(JOBS) - scheduled == set()
    # and every scheduled task is a job run_job can run now (and logs as a JobRun)
    assert scheduled - set(JOBS) == set()
