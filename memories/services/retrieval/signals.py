"""Two signals of a memory's row as SQL, shared by search and the ranking refresh job:
how recently it was seen, and how settled it is (promoted, active, a candidate)."""

from __future__ import annotations

from memories.models import Status

CANONICITY = {Status.PROMOTED: 1.0, Status.ACTIVE: 0.6, Status.CANDIDATE: 0.5}


# Past this many half-lives recency is below what float8 can add to any other component
# (2 ** -64 ≈ 5e-20); capping the exponent keeps power() from underflowing, which
# PostgreSQL raises as an error rather than answering 0 (0.5 ** 1100: a memory of 1984).
RECENCY_MAX_HALF_LIVES = 64


def recency_sql(seen_column: str) -> str:
    """Recency as SQL, in (0, 1] for any time: 0.5 ** (days since ``seen_column`` / half-life),
    the future counting as now. Its parameters: the time now, the half-life in days."""
    days = f"greatest(0, extract(epoch FROM %s - {seen_column})::float8 / 86400)"
    return f"power(0.5, least({days} / greatest(%s, 1e-6), {RECENCY_MAX_HALF_LIVES}))"


def canonicity_sql(status_column: str) -> str:
    """The canonicity of a row as SQL (also the ranking refresh's)."""
    cases = " ".join(f"WHEN '{status}' THEN {value}" for status, value in CANONICITY.items())
    return f"CASE {status_column} {cases} ELSE 0.2 END::float8"
