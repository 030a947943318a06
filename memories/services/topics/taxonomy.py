"""What a statement about a person can be about: the topics memoryhub tells apart.

A topic is what a statement says something about (where someone lives, how to reach them,
their risk profile…), whatever the words and in any of the three languages. It decides:

- **which statements are versions of one another** (``cardinality``): a person has one
  current value of a ``ONE`` topic (one home, one job, one way to be reached), so a newer
  statement of the same person on it supersedes the older; one value per thing of a
  ``PER_THING`` topic (each loan its balance, each plan its fate: two statements are about
  the same thing when they are close in meaning); any number of a ``MANY`` topic (children,
  hobbies, the sectors one avoids);
- **what kind of memory a statement is** (``category``): the same statement said in
  English, Italian or Spanish is the same kind and category, because its topic is;
- **which memories a question is about**: "Where does she live now?" asks about
  ``residence``, and the memories about it answer it, the newest first.

``small_talk`` (greetings, thanks, goodbyes, offers, compliments, congratulations,
pleasantries) yields no memory; ``other`` is anything informative that no topic names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Cardinality(StrEnum):
    ONE = "one"  # one current value per person
    PER_THING = "per_thing"  # one current value per thing (a loan, a plan, a holding)
    MANY = "many"  # any number of values


@dataclass(frozen=True)
class Topic:
    name: str
    cardinality: Cardinality
    category: str  # the memory's category (memories.models.Category) when it is typed
    description: str


ONE, PER_THING, MANY = Cardinality.ONE, Cardinality.PER_THING, Cardinality.MANY

TOPICS: tuple[Topic, ...] = (
    Topic(
        "residence",
        ONE,
        "fact",
        "Where the person lives now or is moving to: city, town, neighbourhood, country, "
        "the home they live in (renting or owning it), a move.",
    ),
    Topic(
        "work",
        ONE,
        "fact",
        "The person's job: profession, role or title, employer, where they work, a new "
        "job, a promotion, leaving a job, retiring, being out of work.",
    ),
    Topic(
        "income",
        ONE,
        "fact",
        "What the person earns: salary, pay, bonus, a raise, how much their work or "
        "pension brings in each year or month.",
    ),
    Topic(
        "marital_status",
        ONE,
        "fact",
        "Whether the person is married, single, engaged, separated, divorced or widowed; "
        "a wedding, a divorce, living together without marrying.",
    ),
    Topic(
        "contact_channel",
        ONE,
        "preference",
        "How the person wants to be contacted: phone, mobile or landline, email, "
        "WhatsApp, text messages, letters; which number or address to use.",
    ),
    Topic(
        "contact_time",
        ONE,
        "preference",
        "When the person wants to be contacted or called: days of the week, times of "
        "day, hours to avoid.",
    ),
    Topic(
        "meetings",
        ONE,
        "preference",
        "Where and how the person wants meetings held: at the office, at their home or "
        "business, by video call, in person, how often to meet.",
    ),
    Topic(
        "report_format",
        ONE,
        "preference",
        "How the person wants reports, statements and documents delivered: on paper by "
        "post, by email, as PDF, through the app, printed.",
    ),
    Topic(
        "report_frequency",
        ONE,
        "preference",
        "How often the person wants reports, statements or updates: monthly, quarterly, "
        "yearly, weekly.",
    ),
    Topic(
        "language",
        ONE,
        "preference",
        "Which language the person wants to be spoken or written to in.",
    ),
    Topic(
        "risk_profile",
        ONE,
        "preference",
        "How much investment risk the person accepts: cautious, conservative, moderate, "
        "balanced, dynamic, aggressive; how they live with losses and market swings.",
    ),
    Topic(
        "allocation",
        ONE,
        "preference",
        "The mix of investments the person wants: the share in shares, bonds or cash, "
        "how much to keep liquid, how concentrated or diversified.",
    ),
    Topic(
        "exclusions",
        MANY,
        "preference",
        "What the person will or will not invest in for ethical or personal reasons: "
        "sectors, companies or countries to avoid or to favour (weapons, tobacco, fossil "
        "fuels, green energy…).",
    ),
    Topic(
        "family",
        MANY,
        "relationship",
        "The person's family and household: spouse or partner, children, parents, "
        "siblings, grandchildren, their names and ages, births and deaths.",
    ),
    Topic(
        "education",
        ONE,
        "fact",
        "What a person studies or will study: school, university, degree, course, the "
        "choice of a subject or a university.",
    ),
    Topic(
        "health",
        MANY,
        "fact",
        "The person's health: illnesses, conditions, operations, treatments, care and "
        "care homes, disability.",
    ),
    Topic(
        "property",
        PER_THING,
        "fact",
        "Real estate the person owns, buys, sells or lets other than the home they live "
        "in: second homes, flats let to tenants, land, the rent they receive.",
    ),
    Topic(
        "debt",
        PER_THING,
        "fact",
        "What the person owes: mortgages, loans, credit, their amounts, rates and terms, "
        "paying them off.",
    ),
    Topic(
        "savings",
        PER_THING,
        "fact",
        "What the person puts aside regularly: pension plan contributions, monthly "
        "savings, gifts to relatives for their studies, funds set aside for a purpose.",
    ),
    Topic(
        "holdings",
        PER_THING,
        "fact",
        "What the person holds or has sold: shares, bonds, funds, crypto, deposits, cash, "
        "stock options, an inheritance or a payout received.",
    ),
    Topic(
        "business",
        PER_THING,
        "fact",
        "A business the person owns or runs: a company, shop, practice, farm; opening, "
        "closing, buying into or selling it.",
    ),
    Topic(
        "goals",
        PER_THING,
        "goal",
        "What the person plans, wants or saves for: buying a home, retiring, paying off a "
        "loan early, funding studies, a big purchase; and a plan given up or changed.",
    ),
    Topic(
        "professionals",
        PER_THING,
        "relationship",
        "The professionals the person deals with: lawyer, solicitor, notary, accountant, "
        "tax adviser, doctor, another bank; who handles what for them.",
    ),
    Topic(
        "tax_legal",
        MANY,
        "fact",
        "Taxes, tax residence and returns, wills, inheritance, powers of attorney, trusts.",
    ),
    Topic(
        "instructions",
        MANY,
        "preference",
        "Standing instructions on how the person wants to be served or answered: always "
        "do this, never do that, check with them before acting.",
    ),
    Topic(
        "leisure",
        MANY,
        "fact",
        "Hobbies, sports, travel, holidays, pets, interests and daily life outside work.",
    ),
    Topic(
        "small_talk",
        MANY,
        "",
        "Greetings, thanks, goodbyes, offers of coffee, compliments, congratulations, "
        "talk about the weather or the traffic, pleasantries: nothing to remember.",
    ),
    Topic("other", MANY, "", "Anything informative that none of the topics above names."),
)

BY_NAME: dict[str, Topic] = {topic.name: topic for topic in TOPICS}
SMALL_TALK, OTHER = "small_talk", "other"
# The topics a memory can be about (small talk yields none).
MEMORY_TOPICS = tuple(t.name for t in TOPICS if t.name != SMALL_TALK)
