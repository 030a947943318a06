"""A circuit breaker for a remote service (an embedding provider, the LLM), per process.

A call asks for a permit first (``acquire``) and gives it back with its outcome
(``release``). No permit means "do not wait for this service": the caller fails over at
once (to the next provider, to no vector, to the heuristic extractor).

- **closed**: every call goes through while the service answers. A failure makes the
  service *unproven* again; failures within ``window`` seconds (``failures`` of them)
  open the circuit, and so does a single timeout: a service that hangs is known by its
  first timeout, not its third.
- **open**: no call for ``cooldown`` seconds.
- **half open**: after the cooldown, one trial call; the others fail over while it is in
  flight. Its success closes the circuit, its failure opens it for another cooldown.
- **unproven** (a remote service this process has not yet heard answer, or whose last
  call failed): one call in flight at a time, so a burst of concurrent calls to a
  service that hangs costs one wait, not one each. The first success proves it. A
  service in the same process (``remote=False``: the local model) has nothing to hang on
  and is not limited.

The state lives in the process: each web process and worker learns on its own (see
docs/operations.md, "How it scales out": provider failures); nothing here touches the database.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Permit:
    """Leave to make one call; ``trial`` when it is the one call of a half-open circuit or
    of an unproven service."""

    trial: bool


class CircuitBreaker:
    def __init__(
        self,
        *,
        failures: int,
        window: float,
        cooldown: float,
        remote: bool = True,
        clock=time.monotonic,
    ):
        self.failures, self.window, self.cooldown, self._clock = failures, window, cooldown, clock
        self.remote = remote
        self._recent: deque[float] = deque()
        self._opened_at: float | None = None
        self._proven = False  # the last call that finished succeeded
        self._in_flight = 0
        self._trial_in_flight = False
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown:
            return "half_open"
        return "open"

    def acquire(self) -> Permit | None:
        """A permit for one call, or None: fail over without waiting."""
        with self._lock:
            state = self._state()
            if state == "open":
                return None
            trial = state == "half_open" or (self.remote and not self._proven)
            if trial and (self._trial_in_flight or (state == "closed" and self._in_flight)):
                return None
            self._in_flight += 1
            self._trial_in_flight = self._trial_in_flight or trial
            return Permit(trial=trial)

    def release(self, permit: Permit, *, ok: bool, timed_out: bool = False) -> None:
        """The call made under ``permit`` is over: it succeeded (``ok``), failed, or ran
        out of time."""
        with self._lock:
            self._in_flight -= 1
            if permit.trial:
                self._trial_in_flight = False
            if ok:
                self._proven = True
                self._recent.clear()
                self._opened_at = None
                return
            self._proven = False
            now = self._clock()
            if self._opened_at is not None:
                self._opened_at = now  # a failed trial keeps it open for another cooldown
                return
            self._recent.append(now)
            while self._recent and now - self._recent[0] > self.window:
                self._recent.popleft()
            if timed_out or len(self._recent) >= self.failures:
                self._opened_at = now
                self._recent.clear()
