"""crosslingual: does a question asked in one language find a statement made in another?

The data set (``data/crosslingual.json``) holds clients whose memory mixes English,
Italian and Spanish statements, questions about exactly one statement each, and nonsense
questions about nothing the client said. Every client's statements are posted as its
events through the product's write path (``events_ingest``), one call per session, oldest
session first, each in its own throw-away tenant (full text in the client's office
language) inside a transaction that is rolled back at the end: the evaluation leaves
nothing behind. Each question is then searched as the API searches (``memories_search``,
with the filters a supervisor reads with and the hits' evidence).

A question *hits@n* when one of the first n memories returned rests on its statement
(the statement's event is among the memory's evidence). The report gives:

- cross-lingual questions (question and statement in different languages): hit@1 and
  hit@k, overall and per direction (question language → statement language);
- same-language questions: the same figures, overall and per language, as the control;
- nonsense questions: the share that answers nothing (an empty result, the right answer),
  overall and on the clients whose memory mixes languages;
- the embedding chain in use, and the spaces the run's vectors were stored in, so that
  the same run with another ``MEMORYHUB_EMBEDDING_PROVIDERS`` can be told apart.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from memories import permissions
from memories.models import Client, MemoryEmbedding, Role
from memories.services.embedding import providers as embeddings
from memories.services.retrieval import Filters, memories_search
from memories.services.tenancy.members import member_ensure, tenant_get_or_create
from memories.services.write.ingest import EventInput, events_ingest

DATASET = Path(__file__).resolve().parent / "data" / "crosslingual.json"
K = 5
LANGUAGES = ("en", "it", "es")
DIRECTIONS = tuple(f"{q}→{s}" for q in LANGUAGES for s in LANGUAGES if q != s)
TEXT_LANGUAGES = {"english", "italian", "spanish", "simple"}
CROSSLINGUAL, SAME_LANGUAGE, NONSENSE = "crosslingual", "same_language", "nonsense"


class Rollback(Exception):
    pass


@dataclass(frozen=True)
class Outcome:
    """What one question got back."""

    id: str
    client: str
    kind: str  # CROSSLINGUAL, SAME_LANGUAGE or NONSENSE
    lang: str
    text: str
    mixed: bool  # the client's memory holds statements in more than one language
    returned: int
    rank: int | None = None  # of the first result resting on the statement (1 = first)
    statement: str | None = None
    statement_lang: str | None = None
    about: str | None = None  # a nonsense question's topic: "absent" or "absurd"
    top: dict | None = None  # the first result: content, score and evidence

    @property
    def direction(self) -> str:
        return f"{self.lang}→{self.statement_lang}"

    def hit(self, n: int) -> bool:
        return self.rank is not None and self.rank <= n


def load(path: Path = DATASET) -> dict:
    return json.loads(path.read_text())


def problems(dataset: dict) -> list[str]:
    """What makes ``dataset`` unusable (unknown references, repeated ids, unknown
    languages); empty when it can be run."""
    found: list[str] = []
    seen: set[str] = set()
    for spec in dataset.get("clients", []):
        ref = spec.get("ref", "?")
        if spec.get("text_language", "simple") not in TEXT_LANGUAGES:
            found.append(f"{ref}: unknown text_language {spec['text_language']!r}")
        sessions = spec.get("sessions", {})
        statements = {s["id"]: s for s in spec.get("statements", [])}
        items = [*spec.get("statements", []), *spec.get("questions", [])]
        items += spec.get("nonsense", [])
        for item in items:
            if item["id"] in seen:
                found.append(f"{ref}: id {item['id']} is used twice")
            seen.add(item["id"])
            if item.get("lang") not in LANGUAGES:
                found.append(
                    f"{item['id']}: language {item.get('lang')!r} is not one of {LANGUAGES}"
                )
            if not item.get("text", "").strip():
                found.append(f"{item['id']}: no text")
        for statement in statements.values():
            if not statement.get("speaker"):
                found.append(f"{statement['id']}: no speaker")
            if statement.get("session", "") and statement["session"] not in sessions:
                found.append(f"{statement['id']}: unknown session {statement['session']!r}")
        for question in spec.get("questions", []):
            if question.get("statement") not in statements:
                found.append(
                    f"{question['id']}: no statement {question.get('statement')!r} in {ref}"
                )
    return found


def evaluate(*, dataset: dict, k: int = K, progress=sys.stderr) -> dict:
    """The report (see the module's docstring), with every question's outcome under
    ``questions``."""
    if found := problems(dataset):
        raise ValueError("the data set cannot be run: " + "; ".join(found))
    report: dict = {}
    try:
        with transaction.atomic():
            outcomes, tenants = _run(dataset, k, progress)
            report = {
                "k": k,
                "embedding": embedding_in_use(tenants),
                **summarise(outcomes, k=k),
                "questions": [{**asdict(o), "direction": _direction(o)} for o in outcomes],
            }
            raise Rollback
    except Rollback:
        pass
    return report


def embedding_in_use(tenants: Iterable = ()) -> dict:
    """The configured chain, and how many of the vectors of ``tenants`` each space holds
    (which of the chain's providers actually answered: read them before the rollback)."""
    chain = embeddings.get_chain()
    stored = (
        MemoryEmbedding.objects.filter(tenant__in=list(tenants))
        .values("space__provider", "space__model", "space__dimension")
        .annotate(vectors=Count("id"))
        .order_by("-vectors")
    )
    return {
        "configured": list(settings.MEMORYHUB_EMBEDDING_PROVIDERS),
        "chain": [
            {"name": p.name, "model": p.model, "dimension": p.dimension} for p in chain.providers
        ],
        "stored": [
            {
                "provider": row["space__provider"],
                "model": row["space__model"],
                "dimension": row["space__dimension"],
                "vectors": row["vectors"],
            }
            for row in stored
        ],
    }


def _run(dataset: dict, k: int, progress) -> tuple[list[Outcome], list]:
    now = timezone.now()
    clients = dataset["clients"]
    outcomes: list[Outcome] = []
    tenants = []
    for number, spec in enumerate(clients, start=1):
        tenant = tenant_get_or_create(
            slug=f"xling-{uuid.uuid4().hex[:10]}", language=spec.get("text_language", "simple")
        )
        tenants.append(tenant)
        user = member_ensure(tenant=tenant, username=f"{tenant.slug}-eval", role=Role.SUPERVISOR)
        _ingest(spec, tenant, user, now)
        client = permissions.client_for_read(user, tenant, spec["ref"])
        filters = permissions.readable_filters(user, client, Filters())
        statements = {s["id"]: s for s in spec.get("statements", [])}
        mixed = len({s["lang"] for s in statements.values()}) > 1
        for question in spec.get("questions", []):
            statement = statements[question["statement"]]
            kind = CROSSLINGUAL if question["lang"] != statement["lang"] else SAME_LANGUAGE
            hits = _search(client, question["text"], k, filters)
            rank = next(
                (
                    n
                    for n, hit in enumerate(hits, start=1)
                    if statement["id"] in {e["external_id"] for e in hit.evidence}
                ),
                None,
            )
            outcomes.append(
                _outcome(question, spec, kind, mixed, hits, rank=rank, statement=statement)
            )
        for question in spec.get("nonsense", []):
            hits = _search(client, question["text"], k, filters)
            outcomes.append(_outcome(question, spec, NONSENSE, mixed, hits))
        _progress(number, len(clients), progress)
    return outcomes, tenants


def _ingest(spec: dict, tenant, user, now) -> None:
    """The client's statements as its events, one call per session (as an agent posts),
    oldest session first; a client with none still exists, with an empty memory."""
    sessions = spec.get("sessions", {})
    by_session: dict[str, list[dict]] = {}
    for statement in spec.get("statements", []):
        by_session.setdefault(statement.get("session", ""), []).append(statement)
    for session in sorted(by_session, key=lambda s: -sessions.get(s, 0)):
        start = now - timedelta(days=sessions.get(session, 0))
        items = [
            EventInput(
                client=spec["ref"],
                session=session,
                speaker=statement["speaker"],
                content=statement["text"],
                external_id=statement["id"],
                observed_at=start + timedelta(minutes=turn),
            )
            for turn, statement in enumerate(by_session[session])
        ]
        events_ingest(user=user, tenant=tenant, items=items)
    if not by_session:
        Client.objects.create(tenant=tenant, external_ref=spec["ref"])


def _search(client, text: str, k: int, filters: Filters) -> list:
    # As the search API asks, except that reads are not logged: the run is rolled back,
    # and usage enters ranking only through counters a job rolls up later.
    return memories_search(
        client=client, query=text, k=k, filters=filters, with_evidence=True, record_access=False
    )


def _outcome(question, spec, kind, mixed, hits, *, rank=None, statement=None) -> Outcome:
    top = None
    if hits:
        first = hits[0]
        top = {
            "content": first.memory.content,
            "score": first.score,
            "evidence": [e["external_id"] for e in first.evidence],
        }
    return Outcome(
        id=question["id"],
        client=spec["ref"],
        kind=kind,
        lang=question["lang"],
        text=question["text"],
        mixed=mixed,
        returned=len(hits),
        rank=rank,
        statement=statement["id"] if statement else None,
        statement_lang=statement["lang"] if statement else None,
        about=question.get("about") if kind == NONSENSE else None,
        top=top,
    )


def _direction(outcome: Outcome) -> str | None:
    return outcome.direction if outcome.kind == CROSSLINGUAL else None


def summarise(outcomes: Iterable[Outcome], *, k: int = K) -> dict:
    """The figures of a run from its outcomes (shares rounded to 4 places)."""
    outcomes = list(outcomes)
    cross = [o for o in outcomes if o.kind == CROSSLINGUAL]
    same = [o for o in outcomes if o.kind == SAME_LANGUAGE]
    nonsense = [o for o in outcomes if o.kind == NONSENSE]
    directions = [d for d in DIRECTIONS if any(o.direction == d for o in cross)]
    directions += sorted({o.direction for o in cross} - set(DIRECTIONS))
    return {
        "dataset": {
            "clients": len({o.client for o in outcomes}),
            "questions": dict(Counter(o.kind for o in outcomes)),
        },
        CROSSLINGUAL: {
            **_hits(cross, k),
            "by_direction": {
                d: _hits([o for o in cross if o.direction == d], k) for d in directions
            },
        },
        SAME_LANGUAGE: {
            **_hits(same, k),
            "by_language": {
                lang: _hits([o for o in same if o.lang == lang], k) for lang in _languages(same)
            },
        },
        NONSENSE: {
            **_empty(nonsense),
            "mixed_clients": _empty([o for o in nonsense if o.mixed]),
            "by_language": {
                lang: _empty([o for o in nonsense if o.lang == lang])
                for lang in _languages(nonsense)
            },
            "by_topic": {
                about: _empty([o for o in nonsense if o.about == about])
                for about in sorted({o.about for o in nonsense if o.about})
            },
        },
    }


def _languages(outcomes: list[Outcome]) -> list[str]:
    return [lang for lang in LANGUAGES if any(o.lang == lang for o in outcomes)]


def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


def _hits(outcomes: list[Outcome], k: int) -> dict:
    """hit@1, hit@k, and the share that got no result at all (a miss the relevance floor
    made, not the ranking)."""
    n = len(outcomes)
    return {
        "questions": n,
        "hit@1": _share(sum(o.hit(1) for o in outcomes), n),
        f"hit@{k}": _share(sum(o.hit(k) for o in outcomes), n),
        "empty": _share(sum(o.returned == 0 for o in outcomes), n),
    }


def _empty(outcomes: list[Outcome]) -> dict:
    n = len(outcomes)
    return {"questions": n, "empty": _share(sum(o.returned == 0 for o in outcomes), n)}


def _progress(done: int, total: int, stream) -> None:
    if stream is None:
        return
    stream.write(f"\rclients {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()
