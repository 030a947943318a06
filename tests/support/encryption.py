"""A corpus and helpers shared by the encrypted-tenant tests (and bench/encryption.py).

The corpus's words avoid the vocabulary memoryhub itself stores in clear (kinds, tiers,
entity types, topics, model and permission names), so finding one of them in a dump means a
client's word leaked; words already in the dump before ingesting are set aside anyway.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from django.db import connection

from memories.models import Role
from memories.services.tenancy.encryption import tenant_create
from memories.services.topics.taxonomy import BY_NAME
from memories.services.write.ingest import EventInput, events_ingest
from memories.text import fold
from tests.support import factories

BASE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

CORPUS = [
    "I prefer to be called on Thursdays after lunch.",
    "My daughter Beatrix studies violin at the conservatoire in Glasgow.",
    "We plan to buy a lighthouse cottage near Whitby within two years.",
    "I never invest in tobacco or armaments companies.",
    "My husband Thaddeus is allergic to shellfish.",
    "I want to retire early and sail around the Hebrides.",
    "Our family trust holds farmland in Herefordshire.",
    "I decided to sell the vineyard shares in Bordeaux.",
    "My granddaughter Philippa starts university in Aberdeen next autumn.",
    "I like quarterly statements printed on paper, posted by mail.",
    "The greenhouse renovation will cost around forty thousand pounds.",
    "I am worried about inflation eroding my pension.",
    "Please avoid calling me during Wimbledon fortnight.",
    "My brother Cornelius manages the orchard business in Kent.",
    "I would like to donate to the marine conservation charity every December.",
    "The sailing yacht needs a new mainsail before the regatta.",
]

QUERIES = [
    "violin conservatoire",
    "lighthouse cottage purchase",
    "shellfish allergy",
    "retire and sail",
    "farmland trust",
    "vineyard shares",
    "university next autumn",
    "pension inflation",
    "orchard business",
    "charity donation",
    "mainsail regatta",
    "tobacco investments",
]


def ingest_corpus(*, user, tenant, client="ana-7", corpus=CORPUS, session="s-1", ids="e"):
    items = [
        EventInput(
            client=client,
            content=text,
            session=session,
            speaker="client",
            external_id=f"{ids}-{i}",
            observed_at=BASE + timedelta(minutes=i),
            metadata={"note": text},
        )
        for i, text in enumerate(corpus)
    ]
    return events_ingest(user=user, tenant=tenant, items=items)


def client_who_said(*statements: str, slug: str = "said", encrypted: bool = False):
    """The one client of a new tenant (clear or ``encrypted``), once its events
    ``statements`` are ingested by a supervisor."""
    tenant = tenant_create(slug=slug, name=slug.title(), encrypted=encrypted)
    user = factories.UserFactory.create(username="supervisor")
    factories.MembershipFactory.create(tenant=tenant, user=user, role=Role.SUPERVISOR)
    ingest_corpus(user=user, tenant=tenant, corpus=list(statements))
    return tenant.clients.get()


def dump_database() -> str:
    """Every row of every table of the database, as COPY writes it (values, not schema)."""
    chunks: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) "
            "FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
            "AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
        )
        tables = [row[0] for row in cursor.fetchall()]
        raw = cursor.cursor  # psycopg 3: COPY streams through the driver's cursor
        for table in tables:
            with raw.copy(f"COPY {table} TO STDOUT") as copy:
                chunks.extend(bytes(block).decode("utf-8", "replace") for block in copy)
    return "\n".join(chunks)


def words(text: str, *, longer_than: int = 3) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", fold(text)) if len(w) > longer_than}


def leaked(dump: str, corpus, *, baseline: str) -> dict[str, list[str]]:
    """What of ``corpus`` the dump shows: whole sentences, and words (> 3 letters) that
    were not in the ``baseline`` dump before the corpus was ingested.

    The names of the topics a memory is about ("business", "health") are the product's own
    fixed vocabulary, stored in clear like a memory's kind so they can be indexed: they
    are not words of the client's, and a corpus word that is also a topic's name is not a
    leak."""
    folded, before = fold(dump), words(baseline)
    found_words = words(folded) - before - set(BY_NAME)
    out = {"sentences": [s for s in corpus if fold(s) in folded]}
    out["words"] = sorted({w for s in corpus for w in words(s)} & found_words)
    return out
