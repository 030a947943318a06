"""The browser pages of ``memories``: a memory and its changes (correct, forget, undo, tier),
audit trails, login, and the admin's webhook pages. Pages read through selectors and write
through services, as the API does; ``memories/urls.py`` routes them."""
