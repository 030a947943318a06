import os

from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self) -> None:
        from memories.api import schema  # noqa: F401 (registers the OpenAPI auth extension)
        from memories.db import forget_inherited_connections
        from memories.pages import webhook_admin  # noqa: F401 (registers the webhook pages)
        from memoryhub.observability import request_ids, traces

        request_ids.connect_task_hooks()
        traces.connect_task_hooks()
        traces.configure()

        # django-q2 forks its workers after Django is set up; so may a pre-forking server.
        os.register_at_fork(after_in_child=forget_inherited_connections)
