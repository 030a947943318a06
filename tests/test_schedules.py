import io

import pytest
from django.core.management import call_command
from django_q.models import Schedule

pytestmark = pytest.mark.django_db


def test_setup_schedules_is_idempotent():
    call_command("setup_schedules", stdout=io.StringIO())
    call_command("setup_schedules", stdout=io.StringIO())
    assert list(Schedule.objects.order_by("name").values_list("name", "func", "minutes")) == [
        ("reembed", "memories.tasks.reembed", 5),
        ("roll_up_accesses", "memories.tasks.roll_up_accesses", 5),
    ]
