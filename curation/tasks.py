"""django-q2 doorways: take ids, call a service."""

from curation.services.review import conflict_reviews_open as _conflict_reviews_open


def conflict_reviews_open(relation_ids: list[int]) -> int:
    return len(_conflict_reviews_open(relation_ids=relation_ids))
