"""The search benchmarks' corpus: two generated sentences a memory, the queries they ask,
and the tenant a data set lives in. Importing it runs no set-up, so that every search
benchmark can use it without running another's."""

from __future__ import annotations

import argparse
import random

SUBJECTS = [
    "email",
    "phone calls",
    "video meetings",
    "quarterly reports",
    "index funds",
    "government bonds",
    "real estate",
    "crypto",
    "gold",
    "private equity",
    "sailing",
    "golf",
    "opera",
    "hiking",
    "wine",
    "art",
    "tennis",
    "cooking",
]
CITIES = [
    "Bristol",
    "Leeds",
    "Milan",
    "Turin",
    "Madrid",
    "Seville",
    "Zurich",
    "Lugano",
    "Lisbon",
    "Vienna",
    "Lyon",
    "Munich",
    "Dublin",
    "Oslo",
    "Porto",
    "Geneva",
]
PEOPLE = ["James", "Sarah", "Luca", "Giulia", "Carlos", "Lucía", "Anna", "Marco", "Sofia"]
TEMPLATES = [
    "Prefers {s} for anything about {t}.",
    "Lives in {c} and visits {c2} every spring.",
    "Wants to move part of the savings into {s} within {n} years.",
    "Decided not to invest in {s} after the {c} meeting.",
    "{p} handles the family's {s} questions.",
    "Enjoys {s} on weekends with {p}.",
    "Plans to buy a flat in {c} for about {n}00,000 euros.",
    "Is worried about {s} exposure in the portfolio.",
    "Asked for a review of {s} before the trip to {c}.",
    "Has {n} grandchildren; {p} is the eldest.",
]
QUERIES = [
    "how does the client want to be contacted",
    "where does she live",
    "what does he think about crypto",
    "who handles the family finances",
    "plans to buy property",
    "hobbies and weekends",
    "risk worries in the portfolio",
    "grandchildren",
    "upcoming trips",
    "investment decisions",
]


def sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        s=rng.choice(SUBJECTS),
        t=rng.choice(SUBJECTS),
        c=rng.choice(CITIES),
        c2=rng.choice(CITIES),
        p=rng.choice(PEOPLE),
        n=rng.randint(2, 9),
    )


def data_set_slug(memories: int) -> str:
    """The tenant bench/search.py builds its data set of ``memories`` in."""
    return f"bench-search-v3-{memories}"


def data_set_parser() -> argparse.ArgumentParser:
    """--memories and --queries, for the scripts that read bench/search.py's data set."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    return parser


def data_set_arguments() -> argparse.Namespace:
    return data_set_parser().parse_args()


def built_data_set(memories: int):
    """The tenant of bench/search.py's data set of ``memories`` (Django must be set up)."""
    from memories.models import Tenant

    tenant = Tenant.objects.filter(slug=data_set_slug(memories)).first()
    if tenant is None:
        raise SystemExit(f"no data set of {memories}: run bench/search.py --memories {memories}")
    return tenant
