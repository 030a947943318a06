"""Test settings: the real stack, with django-q2 running tasks inline."""

import os

os.environ.setdefault("MEMORYHUB_QUEUE_SYNC", "true")

from memoryhub.settings import *  # noqa: F403

# A fixed master key for encrypted tenants in tests (never a real one).
MEMORYHUB_MASTER_KEY = "bWVtb3J5aHViLXRlc3QtbWFzdGVyLWtleS0zMmJ5dGU="
MEMORYHUB_MASTER_KEYS_OLD = ""

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test logins
