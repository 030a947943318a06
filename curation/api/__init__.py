"""The API of ``curation``: the review queue (list, one item, decide) for scripts and
agents' supervisors. ``curation/api/urls.py`` lists the routes, wired beside the rest of the
API in ``memoryhub/urls.py``."""
