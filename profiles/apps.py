from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"
    verbose_name = "Profiles"

    def ready(self) -> None:
        """What profiles adds to memories' write path and jobs: a rebuild queued for the
        clients a write made stale, and the periodic refresh of those still due."""
        from memories.services.jobs.runner import job_register
        from memories.services.signals import profiles_stale
        from profiles.tasks import profiles_stale_receiver

        profiles_stale.connect(profiles_stale_receiver, dispatch_uid="profiles-stale")
        job_register(
            "refresh_profiles",
            "profiles.services.refresh.profiles_refresh_due",
            after="refresh_ranking",
            task="profiles.tasks.refresh_profiles",
            minutes=10,
        )
