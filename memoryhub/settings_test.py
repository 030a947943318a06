"""Test settings: the real stack, with django-q2 running tasks inline."""

import os

os.environ.setdefault("MEMORYHUB_QUEUE_SYNC", "true")

from memoryhub.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test logins
