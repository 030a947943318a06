from datetime import time

from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        """What curation adds to memories' write path and jobs: the review items of the
        conflicts a write stores, and the nightly promotion scoring."""
        from curation.tasks import conflicts_found_receiver
        from memories.services.jobs.runner import job_register
        from memories.services.signals import conflicts_found

        conflicts_found.connect(conflicts_found_receiver, dispatch_uid="curation-conflicts")
        job_register(
            "score_promotions",
            "curation.services.promotion_scoring.promotions_score",
            after="extract_principles",
            task="curation.tasks.score_promotions",
            minutes=24 * 60,
            at=time(3, 0),
        )
