"""The search benchmarks' corpus: two generated sentences a memory, and the queries they
ask. Data only, so that every search benchmark can import it without running another's
set-up."""

from __future__ import annotations

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
