"""Test settings: the real stack, with django-q2 running tasks inline."""

import os

os.environ.setdefault("MEMORYHUB_QUEUE_SYNC", "true")

from memoryhub.settings import *  # noqa: F403

# A fixed master key for encrypted tenants in tests (never a real one).
MEMORYHUB_MASTER_KEY = "bWVtb3J5aHViLXRlc3QtbWFzdGVyLWtleS0zMmJ5dGU="
MEMORYHUB_MASTER_KEYS_OLD = ""

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test logins

# Each test client builds its own request handler, and WhiteNoise's middleware lists every
# static file when it is built (about 40 ms, thousands of times a run). Here it looks a
# file up when one is asked for, as it does under DEBUG; the files served are the same.
WHITENOISE_AUTOREFRESH = True
