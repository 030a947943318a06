"""What the write path tells the apps built on ``memories``, as Django signals. ``curation``
and ``profiles`` connect to them in their ``AppConfig.ready``: the link between the apps is
that registration, and ``memories`` imports neither."""

from django.dispatch import Signal

# Inside the write's transaction, ``relation_ids``: the conflicts it stored. Receivers run
# in that transaction (a person sees the conflict as soon as the event is stored, worker or
# not); one that raises rolls the write back.
conflicts_found = Signal()

# After commit, ``client_ids``: the clients whose profile a write made stale (once per
# client until its profile is rebuilt).
profiles_stale = Signal()
