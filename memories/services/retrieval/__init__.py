"""Hybrid retrieval: the one place where memories are ranked.

Candidates come from indexes only: the client's nearest vectors (pgvector HNSW with
iterative scan, or the (space, client) b-tree for small clients: the planner picks by
statistics) and full-text matches (GIN on the folded, stemmed ``search_vector``), and,
when the question asks for advice, the client's nearest preferences (standing instructions
included), however many other memories are nearer. The union, a few times ``k``, is then
scored with configurable weights:

    score = Σ weight × component − Σ weight × penalty − weight_redundancy × redundancy

components: semantic (cosine), text (BM25, scaled to the best candidate), recency
(half-life 14 days from the last time the client said it), usage (log-normalised over the
candidates), confidence, importance, canonicity (promoted > active > candidate), speaker
(the query names who said it), answer (it holds the kind of answer the question asks for:
a person, a day, an amount; ``answers.py``), advice (it is a preference, standing
instructions included, and the question asks the assistant for advice or help: "what
would you suggest…", "can you help me…"), window (it happened in the days the question
names, "in April 2022", "last week": a soft window, and those words are taken out of the
query's vector and words, and so out of the floor), early (it was said before the other
candidates, when the question asks how things began: "when I first…", "initially"),
scope (a standing instruction names what it is for, "when I ask about distance formulas",
and the question is about that: the share of those words it has; ``scope.py``).
What a question says about the conversation rather than its subject ("can you give me a
summary of…", "throughout our conversations") is not searched for at all (``framing.py``).
A question about several things at once ("the filing fees and the medical exam") is
searched for each of them too, and each one's best memory has a place in the answer
(``aspects.py``).
The first ``FIRST_RESULTS`` (10) are the same at every ``k``: the search for a larger
``k`` only adds to the search for ten (``_stable``).

A penalty: past (a plan or deadline whose day has gone by: still found, a little lower).
Redundancy penalises a candidate by its similarity to those already chosen (greedy, like
MMR), so near-duplicates are not returned twice, and ``same_event`` one that only repeats
a message the answer already cites. A memory the same speaker said again later with another
number, date or amount is flagged (``newer_versions``, ``scores["outdated"]``); with
``SEARCH_NEWER_FIRST`` (on by default) the pick puts the newer just before it.

Usage (how often a memory was read) is a component a tenant may weigh, but weighs nothing
by default: what a search returned would otherwise come back because it was returned.

Candidates and every component come from one statement (``statement.py``); this
module runs it, makes the pick, and logs the reads with the evidence in one more.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection
from django.utils import timezone

from memories.conf import setting
from memories.crypto import blind
from memories.db import bound_cursor
from memories.selectors.filters import Filters
from memories.selectors.memory import EVIDENCE_SQL, evidence_grouped
from memories.services.embedding import providers as embeddings
from memories.services.embedding import spaces
from memories.services.retrieval.answers import expected_answer
from memories.services.retrieval.aspects import with_aspects
from memories.services.retrieval.floor import (
    KEYWORDS,
    VALUE,
    Floor,
    Relevance,
    floor_for,
    question_kind,
)
from memories.services.retrieval.framing import unframed
from memories.services.retrieval.names import named_speakers, without_client
from memories.services.retrieval.pick import CONTENT_HASH, ID, Candidate, Hit, select
from memories.services.retrieval.query import query_topics
from memories.services.retrieval.scope import scoped
from memories.services.retrieval.statement import (
    COMPONENTS,
    SCORED_COLUMNS,
    Search,
    candidates_statement,
)
from memories.services.retrieval.window import (
    asks_before,
    asks_beginning,
    asks_history,
    query_window,
)
from memories.services.topics.people import question_about
from memories.text import QUERY_WORD, fold
from memoryhub import replica
from memoryhub.observability import traces

__all__ = ["Filters", "Hit", "memories_search", "ranking_weights"]

NO_FILTERS = Filters()

# Chosen with `bench/ranking_weights.py` on LoCoMo and BEAM (conversations nobody here wrote,
# of two shapes) and on `memory_eval`, in one run (docs/decisions/0049): text counts less than
# meaning because BM25 is scaled to its best candidate; importance lets a typed fact outrank
# an episode that only shares its words; the message a memory was said in (context) counts
# more than the memory alone, for a sentence of a long message is about what the message is
# about; usage weighs nothing (a search's answer would come back because it was returned).
DEFAULT_WEIGHTS = {
    "semantic": 0.35,
    "context": 0.45,
    "text": 0.25,
    "recency": 0.10,
    "confidence": 0.05,
    "importance": 0.05,
    "usage": 0.0,
    "canonicity": 0.05,
    "speaker": 0.10,
    "answer": 0.05,
    "advice": 0.10,
    "scope": 0.10,
    "window": 0.10,
    "early": 0.10,
    "topic": 0.20,
    "past": 0.05,
    "redundancy": 0.10,
    "same_event": 0.10,
}
# The two weightings the seed documents propose, kept for the evaluation to compare.
SEED_000_WEIGHTS = {"semantic": 0.55, "text": 0.25, "recency": 0.15, "usage": 0.05}
SEED_004_WEIGHTS = {
    "semantic": 0.30,
    "recency": 0.20,
    "confidence": 0.20,
    "importance": 0.15,
    "usage": 0.10,
    "canonicity": 0.05,
    "redundancy": 0.10,
}


# Where messages have no vectors (``MESSAGE_VECTORS`` off), a memory is read alone, with the
# weight its meaning had before they had: the ranking measured then. Its own cosine at 0.7
# (the context falls back to it) gains BEAM 0.008 at 10 and loses an update question of 62
# (docs/decisions/0045).
WITHOUT_CONTEXT = {"semantic": 0.60, "context": 0.0}


def ranking_weights() -> dict[str, float]:
    configured = setting("RANKING_WEIGHTS")
    if isinstance(configured, str):
        configured = json.loads(configured) if configured else {}
    defaults = DEFAULT_WEIGHTS if setting("MESSAGE_VECTORS") else DEFAULT_WEIGHTS | WITHOUT_CONTEXT
    return {**defaults, **(configured or {})}


def memories_search(
    *,
    client,
    query: str,
    k: int = 10,
    filters: Filters = NO_FILTERS,
    weights: dict[str, float] | None = None,
    now: datetime | None = None,
    record_access: bool = True,
    with_evidence: bool = False,
    budget_chars: int | None = None,
) -> list[Hit]:
    """The ``k`` memories of ``client`` most relevant to ``query`` (with ``budget_chars``,
    as many of them as fit that many characters of content). ``record_access`` logs the
    reads (usage feeds ranking and tier promotion); ``with_evidence`` loads each hit's
    evidence. Both share one round trip after the ranking statement."""
    with traces.memory_operation("search_memory", store=client.pk) as span:
        now = now or timezone.now()
        weights = weights or ranking_weights()
        # What it says about the conversation ("can you give me a summary of…", "throughout
        # our conversations") is not what it asks about (framing.py).
        topic = unframed(query)
        # Asked of the question as put, before its framing is set aside (``floor``).
        kind = question_kind(query)
        hits = with_aspects(
            _stable(client, topic, k, filters, weights, now, kind),
            topic,
            lambda aspect: _ranked(client, aspect, 1, filters, weights, now, kind),
            k,
        )
        if budget_chars is not None:
            hits = packed(hits, budget_chars)
        if hits and (record_access or with_evidence):
            _answer_complete(client, hits, now, record_access=record_access, evidence=with_evidence)
        traces.record_search(span, tenant=client.tenant, query=query, k=k, hits=hits)
    return hits


# The first results of every search are its answer at this k: asked for fewer, a client
# gets the first of them; asked for more, the rest follow them.
FIRST_RESULTS = 10


def _stable(
    client, topic: str, k: int, filters: Filters, weights: dict, now: datetime, kind: str
) -> list[Hit]:
    """The ``k`` best memories for ``topic``, the first ``FIRST_RESULTS`` of them the same
    at every ``k``. The pick looks deeper for a larger ``k`` (``SELECTION_DEPTH`` × k rows),
    and deeper it may choose otherwise among the first: a search for 50 would not begin as
    the search for 10 does. So those are the search for 10, and a larger ``k`` adds what
    its own search ranks next."""
    first = _ranked(client, topic, FIRST_RESULTS, filters, weights, now, kind)
    if k <= FIRST_RESULTS or not first:
        return first[:k]
    taken = {hit.memory.pk for hit in first}
    more = _ranked(client, topic, k, filters, weights, now, kind)
    return first + [hit for hit in more if hit.memory.pk not in taken][: k - len(first)]


def _ranked(
    client,
    topic: str,
    k: int,
    filters: Filters,
    weights: dict,
    now: datetime,
    kind: str = VALUE,
) -> list[Hit]:
    """The ``k`` best memories for ``topic`` (the question without what it says about the
    conversation), before packing and before the reads are logged."""
    # The days it asks about weigh through the window component: in a vector they would
    # pull every statement that names a date closer, whatever it says; among the words
    # they would count against every memory that does not spell the date out.
    window, undated = query_window(topic, now)
    # Names match by their words (and the speaker component); in a vector they would only
    # pull every statement of that person closer, whatever it says.
    about_client = without_client(client, undated)
    speakers, unnamed = named_speakers(client, about_client)
    space, vector = _query_vector(client, unnamed) if weights.get("semantic") else (None, None)
    words, blind_readings = _query_words(client.tenant, about_client)
    # What it is about: a ranking component, and what tells keywords that ask for a value
    # from keywords about nothing a client tells of (``floor.floor_for``).
    read = query_topics(unnamed, space, vector) if weights.get("topic") or kind == KEYWORDS else ()
    asked_topics = read if weights.get("topic") else ()
    search = Search(
        client=client,
        space=space,
        vector=vector,
        words=words,
        speakers=speakers,
        expected=expected_answer(unnamed),
        text_config=client.tenant.language,
        filters=filters,
        weights=weights,
        now=now,
        k=k,
        blind_readings=blind_readings,
        window=window,
        beginning=asks_beginning(topic),
        topics=asked_topics,
        about=question_about(unnamed),
        floor=floor_for(kind, read),
    )
    rows = scoped(_scored_candidates(search), topic, weights.get("scope", 0.0))
    return select(
        rows,
        weights,
        k,
        newer_first=(search.expected.current or (bool(search.topics) and not asks_history(topic)))
        and not search.beginning
        and not asks_before(topic),
        asked=search.expected.measures,
        topics=search.topics,
        about=search.about,
    )


def _query_words(tenant, query: str) -> tuple[str, tuple[tuple[str, str, int], ...] | None]:
    """The query's words for full text (any of them matches: ranking, not the match,
    decides what comes first). An encrypted tenant's are its blind-index tokens, with the
    configuration each was stemmed in and the position of its word."""
    if tenant.encrypted:
        readings = tuple(blind.query_tokens(tenant, query))
        return " ".join(dict.fromkeys(t for _, t, _ in readings)), readings
    return " ".join(list(dict.fromkeys(QUERY_WORD.findall(fold(query))))[:32]), None


def _query_vector(client, query: str):
    if not client.tenant.vector_search_enabled or not query.strip():
        return None, None
    try:
        result = spaces.working_chain(client.tenant).embed(
            [query], input_type="query", accounts_shared=client.tenant.account_numbers_shared
        )
    except embeddings.EmbeddingError:
        return None, None  # full text still answers
    space = embeddings.known_space(result.provider, result.model)
    return (space, result.vectors[0]) if space else (None, None)


def _scored_candidates(search: Search) -> list[Candidate]:
    """The scored candidates, best base score first.

    The quick statement serves the usual search (default filters); should too few of the
    nearest vectors be live to fill the pool, the thorough one runs instead (see
    ``candidates_statement``)."""
    thorough = search.filters != NO_FILTERS
    sql, params = candidates_statement(search, thorough=thorough)
    if not sql:
        return []
    with bound_cursor(replica.read_alias()) as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
        # No row at all cannot say whether it was short: ask the thorough statement too
        # (an empty answer is rare, and cheap when the client has little memory).
        if not thorough and search.space is not None and (not fetched or fetched[0][-1]):
            cursor.execute(*candidates_statement(search, thorough=True))
            fetched = cursor.fetchall()
    width, at = len(SCORED_COLUMNS), len(SCORED_COLUMNS) + 1 + len(COMPONENTS)
    floor = Floor.configured(search.space.model if search.space else None)
    if fetched and not floor.answers(Relevance(*fetched[0][at : at + 5]), asks=search.floor):
        return []  # nothing matches: that is the answer, not the client's nearest memories
    return [
        Candidate(
            id=row[ID],
            content_hash=row[CONTENT_HASH],
            base=row[width],
            components=row[width + 1 : at],
            close=_cosines(row[at + 5], row[at + 6]),
            said=_cosines(row[at + 5], row[at + 7]),
            columns=row[:width],
            events=frozenset(row[at + 8] or ()),
        )
        for row in fetched
    ]


def _cosines(ids, cosines) -> dict:
    """id → cosine, of the pairs the statement reports (a memory without a vector has none)."""
    return {i: c for i, c in zip(ids or (), cosines or (), strict=True) if c is not None}


# This statement's implicit transaction does not wait for the WAL flush (is_local).
_QUICK_COMMIT = "quick AS (SELECT set_config('synchronous_commit', 'off', true))"


def _answer_complete(client, hits, now, *, record_access: bool, evidence: bool) -> None:
    """One statement after the pick: log the reads (one INSERT for the whole answer) and
    read the hits' evidence.

    Outside a transaction the INSERT turns ``synchronous_commit`` off for its own implicit
    transaction (``set_config`` with is_local): losing the last few rows in a crash costs
    a usage count, so a read does not wait for the WAL flush. Inside one, the caller's
    transaction decides how it commits."""
    ids = [h.memory.pk for h in hits]
    ctes, params = [], []
    reads_on = replica.read_alias()
    if record_access and reads_on != replica.PRIMARY:
        # The log is written on the primary, the evidence read where the search read.
        _log_reads(client, ids, now)
        record_access = False
    if record_access:
        quick = not connection.in_atomic_block
        if quick:
            ctes.append(_QUICK_COMMIT)
        # A data-modifying WITH runs to completion whether or not the query reads it.
        ctes.append(f"logged AS ({_reads_logged(quick=quick)})")
        params += [client.pk, now, ids]
    query = EVIDENCE_SQL if evidence else "SELECT NULL WHERE false"
    if evidence:
        params.append(ids)
    with bound_cursor(reads_on) as cursor:
        cursor.execute(f"WITH {', '.join(ctes)} {query}" if ctes else query, params)
        found = evidence_grouped(cursor.fetchall())
    for hit in hits:
        hit.evidence = found.get(hit.memory.pk, [])


def _log_reads(client, ids, now) -> None:
    """The read log alone, on the primary (``_answer_complete`` joins it to the evidence
    when both are on the primary)."""
    with bound_cursor() as cursor:
        cursor.execute(f"WITH {_QUICK_COMMIT} {_reads_logged(quick=True)}", [client.pk, now, ids])


def _reads_logged(*, quick: bool) -> str:
    """The INSERT of one read-log row per returned memory; its parameters are the client,
    the time and the memory ids. ``quick`` joins the CTE ``_QUICK_COMMIT`` names."""
    source = "quick, unnest(%s::uuid[]) AS id" if quick else "unnest(%s::uuid[]) AS id"
    return (
        "INSERT INTO memories_memoryaccess (memory_id, client_id, at, rolled_up) "  # noqa: S608
        f"SELECT id, %s, %s, false FROM {source}"
    )


def packed(hits: list[Hit], budget_chars: int) -> list[Hit]:
    """The best hits whose content fits ``budget_chars`` in all, in rank order; one that
    does not fit is passed over for shorter ones after it."""
    kept, used = [], 0
    for hit in hits:
        if used + len(hit.memory.content) <= budget_chars:
            kept.append(hit)
            used += len(hit.memory.content)
    return kept
