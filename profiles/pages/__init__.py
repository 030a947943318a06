"""The browser pages of ``profiles``: the client list, a client's page with its panels
(profile, attention, context preview, export, erasure) and its memories and timeline, and a
client's own view of their memory. ``profiles/urls.py`` routes them."""
