"""The API of ``profiles``: ``/api/v1/context/`` (an agent's context for a message) and a
client's profile. ``profiles/api/urls.py`` lists the routes, wired beside the rest of the API in
``memoryhub/urls.py``."""
