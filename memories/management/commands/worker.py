"""``manage.py worker``: django-q2's ``qcluster``, stopped cleanly by a signal to its whole
process group.

Process managers often stop a service by signalling every process in it (systemd's default
``KillMode=control-group``, ``kill -- -PGID``, Ctrl-C in a terminal). qcluster's own
children then die at once, and the cluster process, asked to stop in the same instant,
waits for ever to wake a sentinel that is gone (django-q2 issue 346 is the same lock), until
the manager kills it. Here every process the cluster forks leaves the group, so only the
cluster process hears the signal and stops its children in order (a task in hand finishes),
and asks for a SIGTERM if its parent dies, so a cluster killed outright leaves no orphans.
"""

from __future__ import annotations

import os

from django_q.management.commands.qcluster import Command as QclusterCommand

from memoryhub.serving import stop_with_parent


def _leave_the_group() -> None:
    os.setpgid(0, 0)
    stop_with_parent()


class Command(QclusterCommand):
    help = (
        "Run the background worker (django-q2's qcluster): jobs and the tasks requests queue. "
        "SIGTERM or Ctrl-C, to it or to its whole process group, stops it once the task in "
        "hand is done."
    )

    def handle(self, *args, **options):
        os.register_at_fork(after_in_child=_leave_the_group)
        return super().handle(*args, **options)
