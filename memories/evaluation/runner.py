"""memory_eval: seed-004 §11 metrics for memoryhub and two baselines on a shipped,
labelled dataset of multi-session conversations (English, Italian, Spanish) in which
facts change over time.

Everything is ingested into a throw-away tenant inside a transaction that is rolled back
at the end: the evaluation leaves nothing behind.

For each question, a system returns at most k results. A result is *relevant* when it
rests on one of the question's evidence events (a memory through its evidence links, a
baseline's raw event directly) and *stale* when it rests only on an older statement of a
fact that has since changed.

- recall@k: share of questions with at least one relevant result (any evidence counts);
- precision@k: relevant results over results returned, averaged over questions;
- duplicate rate: results that repeat an earlier result of the same answer;
- stale rate: share of questions whose answer includes a stale result;
- conflict rate: share of questions whose answer holds both the current and a stale
  statement (the agent is handed a contradiction).
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.db import transaction
from django.utils import timezone

from memories.evaluation.baselines import BM25, Dense
from memories.models import Evidence, MemoryEmbedding, Role
from memories.services.embedding import providers as embeddings
from memories.services.retrieval import memories_search
from memories.services.tenancy.members import member_ensure, tenant_get_or_create
from memories.services.write.ingest import EventInput, events_ingest
from memories.text import content_hash

DATASET = Path(__file__).resolve().parent / "data" / "conversations.json"
LANGUAGES = {"en": "english", "it": "italian", "es": "spanish"}
DUPLICATE_COSINE = 0.92


class Rollback(Exception):
    pass


@dataclass
class Score:
    questions: int = 0
    recall: float = 0.0
    precision: float = 0.0
    duplicates: float = 0.0
    stale: float = 0.0
    conflict: float = 0.0
    by_language: dict = field(default_factory=dict)

    def add(self, *, relevant: list[bool], stale: list[bool], duplicate: list[bool]) -> dict:
        returned = len(relevant)
        row = {
            "recall": float(any(relevant)),
            "precision": sum(relevant) / returned if returned else 0.0,
            "duplicates": sum(duplicate) / returned if returned else 0.0,
            "stale": float(any(stale)),
            "conflict": float(any(relevant) and any(stale)),
        }
        self.questions += 1
        for name, value in row.items():
            setattr(self, name, getattr(self, name) + value)
        return row

    def summary(self) -> dict:
        n = max(self.questions, 1)
        return {
            "questions": self.questions,
            "recall@k": round(self.recall / n, 4),
            "precision@k": round(self.precision / n, 4),
            "duplicate_rate": round(self.duplicates / n, 4),
            "stale_rate": round(self.stale / n, 4),
            "conflict_rate": round(self.conflict / n, 4),
        }


def load(path: Path = DATASET) -> dict:
    return json.loads(path.read_text())


def _progress(done: int, total: int, label: str, stream) -> None:
    if stream is None:
        return
    width = 30
    filled = int(width * done / max(total, 1))
    stream.write(f"\r{label:<12} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()


def evaluate(
    *,
    dataset: dict,
    k: int = 10,
    weightings: Mapping[str, dict[str, float] | None] | None = None,
    progress=sys.stderr,
) -> dict:
    """Scores per system ({"memoryhub[...]": summary, "bm25": …, "dense": …})."""
    weightings = weightings or {"memoryhub": None}
    results: dict = {}
    try:
        with transaction.atomic():
            results = _run(dataset, k, weightings, progress)
            raise Rollback
    except Rollback:
        pass
    return results


def _run(dataset, k, weightings, progress) -> dict:
    now = timezone.now()
    clients = dataset["clients"]
    chain = embeddings.get_chain()
    scores = {name: Score() for name in [*weightings, "bm25", "dense"]}
    per_language: dict[str, dict[str, Score]] = {name: {} for name in scores}

    for number, spec in enumerate(clients, start=1):
        language = spec["language"]
        tenant = tenant_get_or_create(
            slug=f"eval-{uuid.uuid4().hex[:10]}", language=LANGUAGES.get(language, "simple")
        )
        user = member_ensure(tenant=tenant, username=f"{tenant.slug}-eval", role=Role.SUPERVISOR)
        items, texts, ids = [], [], []
        for session in spec["sessions"]:
            start = now - timedelta(days=session["days_ago"])
            for turn, event in enumerate(session["events"]):
                items.append(
                    EventInput(
                        client=spec["ref"],
                        session=session["ref"],
                        speaker=event["speaker"],
                        content=event["content"],
                        external_id=event["id"],
                        observed_at=start + timedelta(minutes=turn),
                    )
                )
                texts.append(event["content"])
                ids.append(event["id"])
        for session in spec["sessions"]:  # one call per session, as an agent would post
            batch = [i for i in items if i.session == session["ref"]]
            events_ingest(user=user, tenant=tenant, items=batch)
        client = tenant.clients.get(external_ref=spec["ref"])
        memory_events: dict = {}
        for memory_id, external_id in Evidence.objects.filter(memory__client=client).values_list(
            "memory_id", "event__external_id"
        ):
            memory_events.setdefault(memory_id, set()).add(external_id)

        event_vectors = np.asarray(chain.embed(texts).vectors, dtype=np.float32)
        bm25, dense = BM25(texts), Dense(event_vectors)
        for question in spec["questions"]:
            evidence, stale = set(question["evidence"]), set(question.get("stale", ()))
            for name, weights in weightings.items():
                hits = memories_search(
                    client=client,
                    query=question["query"],
                    k=k,
                    weights=weights,
                    record_access=False,
                )
                rows = [memory_events.get(h.memory.pk, set()) for h in hits]
                duplicate = _duplicates(
                    list(range(len(hits))),
                    [h.memory.content for h in hits],
                    _stored_vectors([h.memory.pk for h in hits]),
                )
                _score(scores[name], per_language[name], language, rows, evidence, stale, duplicate)
            query_vector = np.asarray(
                chain.embed([question["query"]], input_type="query").vectors[0], dtype=np.float32
            )
            for name, top in (
                ("bm25", bm25.top(question["query"], k)),
                ("dense", dense.top(query_vector, k)),
            ):
                rows = [{ids[i]} for i in top]
                duplicate = _duplicates(top, texts, event_vectors)
                _score(scores[name], per_language[name], language, rows, evidence, stale, duplicate)
        _progress(number, len(clients), "evaluating", progress)

    return {
        name: {
            **score.summary(),
            "by_language": {lang: s.summary() for lang, s in sorted(per_language[name].items())},
        }
        for name, score in scores.items()
    }


def _score(score: Score, by_language: dict, language, rows, evidence, stale, duplicate):
    relevant = [bool(r & evidence) for r in rows]
    stale_hits = [bool(r & stale) and not (r & evidence) for r in rows]
    score.add(relevant=relevant, stale=stale_hits, duplicate=duplicate)
    by_language.setdefault(language, Score()).add(
        relevant=relevant, stale=stale_hits, duplicate=duplicate
    )


def _stored_vectors(memory_ids: list) -> np.ndarray:
    stored = dict(
        MemoryEmbedding.objects.filter(memory_id__in=memory_ids).values_list("memory_id", "vector")
    )
    dimension = len(next(iter(stored.values()))) if stored else 1
    return np.asarray(
        [stored.get(i, np.zeros(dimension)) for i in memory_ids], dtype=np.float32
    ).reshape(len(memory_ids), dimension)


def _duplicates(top: list[int], texts: list[str], vectors: np.ndarray) -> list[bool]:
    """A raw event repeats an earlier result: same text, or cosine ≥ 0.92."""
    out = []
    for position, index in enumerate(top):
        earlier = top[:position]
        same_text = any(content_hash(texts[j]) == content_hash(texts[index]) for j in earlier)
        close = any(float(vectors[j] @ vectors[index]) >= DUPLICATE_COSINE for j in earlier)
        out.append(same_text or close)
    return out
