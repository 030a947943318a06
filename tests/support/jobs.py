"""Helpers for the background-job tests: state snapshots, two workers at once, and a
run that dies part-way."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

from memories.models import Memory
from memories.services.jobs.runner import JobCounts

STATE = (
    "status",
    "tier",
    "status_reason",
    "canonical_id",
    "dedup_group",
    "dup_count",
    "usage_count",
    "evidence_count",
    "confidence",
    "freshness",
    "promotion_score",
    "rank_score",
)


def snapshot(fields=STATE) -> dict:
    """Every memory's state: compare two to see exactly which rows a job changed."""
    return {row[0]: row[1:] for row in Memory.objects.values_list("pk", *fields)}


def changed(before: dict, after: dict) -> set:
    return {pk for pk in after if before.get(pk) != after[pk]}


def run(service: Callable, **kwargs) -> dict:
    counts = JobCounts()
    service(counts=counts, **{"tenant_id": None, **kwargs})
    return dict(counts)


def in_parallel(*calls: Callable, timeout: float = 120) -> list:
    """Start ``calls`` together, each in its own thread with its own database connection;
    return their results in order, re-raising the first error."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list[BaseException] = []

    def work(index: int, call: Callable) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    if errors:
        raise errors[0]
    return results


class Crash(Exception):
    """Injected: the worker died here."""


def crash_on_call(monkeypatch, target: str, number: int) -> None:
    """Make ``module.attribute`` raise Crash on its ``number``-th call (the ones before run
    normally): with a small JOB_BATCH_SIZE, a run dies after some batches committed."""
    module_name, attribute = target.rsplit(".", 1)
    import importlib

    module = importlib.import_module(module_name)
    original = getattr(module, attribute)
    calls = {"n": 0}

    def wrapper(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == number:
            raise Crash(f"injected crash in {target}, call {number}")
        return original(*args, **kwargs)

    monkeypatch.setattr(module, attribute, wrapper)


def local_space():
    """The local model's embedding space, with its index. Jobs embed what they write;
    creating a space builds an index, which PostgreSQL refuses inside a transaction that
    already inserted vectors (as a test's does), so tests create it first."""
    from memories.services.embedding.providers import get_chain, space_for

    return space_for(get_chain().embed(["warm up"]))
