from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self) -> None:
        from memories import webhook_admin  # noqa: F401 (registers the webhook pages)
        from memories.api import schema  # noqa: F401 (registers the OpenAPI auth extension)
