"""The statement behind a search: candidates from indexes, every score component and the
weighted base score, and the close pairs among the best, in one round trip.

The package (``memories.services.retrieval``) runs it and makes the final, redundancy-aware
pick.
"""

from __future__ import annotations

from memories.conf import setting
from memories.models import EmbeddingSpace, Memory, vector_literal
from memories.services.retrieval.nearest import (
    AGAINST,
    ANSWERING_POOL,
    answering,
    distance,
    nearest_exact,
    nearest_filtered,
    nearest_then_live,
    short_of_live,
)
from memories.services.retrieval.query import Search
from memories.services.retrieval.signals import canonicity_sql, recency_sql
from memories.services.retrieval.sql import Sql, sql
from memories.services.retrieval.text import (
    COVERAGE_JOIN,
    bm25_of_m,
    text_ctes,
    text_scaled,
)
from memories.services.retrieval.where import HAPPENED, filter_sql
from memories.services.retrieval.window import Window
from memories.services.topics.taxonomy import BY_NAME

COMPONENTS = (
    "semantic",
    "context",
    "text",
    "recency",
    "usage",
    "confidence",
    "importance",
    "canonicity",
    "speaker",
    "answer",
    "advice",
    "window",
    "early",
    "topic",
    "past",
)
# Components that count against a memory: its weight is subtracted.
PENALTIES = frozenset({"past"})


# A candidate's topic counts for the relevance floor when it is at least this close in
# meaning (memories.services.retrieval.floor).
TOPIC_NEAR = 0.15
# Candidates of each kind a search reads at least (4k beyond k = 20). A pool of 4k (40 for
# a search of ten) left out candidates that rank among the first ten when more are read:
# recall@10 of a search for ten, BEAM 0.647 → 0.649, LoCoMo 0.778 → 0.782; 200 gained no
# more (docs/decisions/0055).
CANDIDATE_POOL = 80
# Rows scored in SQL; the redundancy-aware selection looks only this deep (× k).
SELECTION_DEPTH = 3
# Below this cosine two memories do not repeat each other at all.
REDUNDANCY_FLOOR = 0.8
# Two memories of one speaker this close say the same thing of the same subject (a number, a
# date, a status said again with another value): the later one is its current value.
RESTATED = 0.72
# Two statements of one speaker this close may be two values of one quantity, if their
# messages give it different values (``pick.newer_versions``): in long messages "…it's
# currently at 180ms under 20 concurrent requests" and "…which has decreased to 120ms under
# 20 concurrent requests" are that close, not RESTATED.
VERSION_FLOOR = 0.6
# The statement reports the pairs this close (their own vectors or their messages') among
# the best candidates.
CLOSE_FLOOR = min(REDUNDANCY_FLOOR, RESTATED, VERSION_FLOOR)

# What ranking and the answer read of a memory (Memory.from_db defers the rest).
_SCORED = {
    "id",
    "tenant_id",
    "client_id",
    "kind",
    "category",
    "content",
    "content_hash",
    "tier",
    "status",
    "confidence",
    "importance",
    "usage_count",
    "last_seen_at",
    "observed_at",
    "created_at",
    "expires_at",
    "tags",
    "speaker",
    "subject",
    "occurred_on",
    "occurred_precision",
    "topic",
    "topic_probability",
    "topics",
}
# In the model's field order, the order Memory.from_db expects.
SCORED_COLUMNS = tuple(f.attname for f in Memory._meta.concrete_fields if f.attname in _SCORED)
assert len(SCORED_COLUMNS) == len(_SCORED), "a scored column is not a field of Memory"


def candidates_statement(search: Search, *, thorough: bool) -> tuple[str, list]:
    """The statement and its parameters. Its rows: the scored columns of a memory, its base
    score, its components, the relevance figures, the ids and cosines of the others close
    to it (cosine ≥ CLOSE_FLOOR) among the best ``SELECTION_DEPTH × k``, the ids of the
    events it rests on, and ``short``; best first.

    Candidates, ``max(4k, CANDIDATE_POOL)`` of each kind: the client's nearest vectors
    (HNSW; the connection sets ``hnsw.iterative_scan``) and its best full-text matches
    (GIN); and, when the question asks for advice, the nearest ``ANSWERING_POOL`` of the
    client's memories of the categories that answer it (``nearest.answering``).

    The quick statement (``thorough=False``, default filters only) finds the nearest
    vectors the way a bare nearest-neighbour query does and keeps the live ones; every row
    says ``short`` when fewer than ``SELECTION_DEPTH × k`` of them were live. The thorough one
    filters while it scans and, should the approximate index still come back short,
    compares the client's rows one by one; it never says ``short``.

    Each part below returns its text with its parameters (``Sql``): the statement's
    parameters are in the order its text names them, whatever the parts.
    """
    pool = max(4 * search.k, CANDIDATE_POOL)
    where = filter_sql(search.filters, search.now)
    ctes: list[Sql] = []
    sources: list[Sql] = []
    short = Sql("false")
    if (space := search.space) is not None:
        ctes.append(
            sql(
                "query_vector AS (SELECT ({vector})::{type} AS v)",
                vector=vector_literal(search.vector),
                type=Sql(space.vector_type),
            )
        )
        if thorough:
            ctes.append(nearest_filtered(search, space, where, pool))
            sources.append(Sql("SELECT id FROM nearest"))
            sources.append(nearest_exact(search, space, where, pool))
        else:
            ctes += nearest_then_live(search, space, where, pool)
            sources.append(Sql("SELECT id FROM nearest"))
            short = short_of_live(search, space, SELECTION_DEPTH * search.k)
        if search.expected.categories:
            sources.append(answering(search, space, where, ANSWERING_POOL))
    if search.words:
        ctes += text_ctes(
            client=search.client.pk,
            words=search.words,
            blind_readings=search.blind_readings,
            text_config=search.text_config,
            where=where,
            pool=pool,
        )
        sources.append(Sql("SELECT id FROM text_pool"))
    if not sources:
        return "", []
    statement = sql(
        "WITH {ctes}pool AS ({union}), raw AS ({raw}), "
        "scored AS (SELECT *, {text} AS c_text FROM raw), "
        "best AS MATERIALIZED (SELECT *, {base} AS base FROM scored "
        "ORDER BY base DESC, id LIMIT {depth}), {said} {best}",
        ctes=Sql("").join(cte + Sql(", ") for cte in ctes),
        union=Sql(" UNION ").join(sql("({source})", source=source) for source in sources),
        raw=_raw(search),
        text=text_scaled() if search.words else Sql("0::float8"),
        base=_base(search.weights),
        depth=SELECTION_DEPTH * search.k,
        said=_said_in(search),
        best=_best_rows(short),
    )
    return statement.text, list(statement.params)


def _raw(search: Search) -> Sql:
    """Each candidate's scored columns, its vector (for the close pairs) and its components
    but text, which ``scored`` scales over all of them. Text: BM25 over the memory's words,
    its speaker's name and (at TEXT_CONTEXT_WEIGHT) the turn it answers, each term weighed
    by its rarity among the client's memories. ``coverage``: the share of the query's weight
    (its rare words weigh most) that the memory holds, for the relevance floor."""
    space, words = search.space, bool(search.words)
    semantic = (
        Sql("0::float8")
        if space is None
        else sql("greatest(0, 1 - ({distance}))", distance=distance(space))
    )
    return sql(
        "SELECT {columns}, {vector} AS vector, {semantic} AS c_semantic, "
        "{context} AS c_context, "
        "{text} AS text_raw, {coverage} AS c_coverage, {total} AS text_total, {components} "
        "FROM pool JOIN memories_memory m ON m.id = pool.id {coverage_join} {embedding}",
        columns=Sql(", ".join(f"m.{name}" for name in SCORED_COLUMNS)),
        vector=Sql("NULL::vector" if space is None else "e.vector"),
        semantic=semantic,
        # Without the messages' vectors (MESSAGE_VECTORS off) each memory is its own
        # context, and no message is looked up.
        context=_context(space) if space is not None and setting("MESSAGE_VECTORS") else semantic,
        text=bm25_of_m() if words else Sql("0::float8"),
        coverage=Sql("coalesce(coverage.share, 0)" if words else "0::float8"),
        total=Sql("coverage.total" if words else "NULL::float8"),
        components=_components(search),
        coverage_join=COVERAGE_JOIN if words else Sql(""),
        embedding=(
            Sql("")
            if space is None
            else sql(
                "LEFT JOIN memories_memoryembedding e ON e.memory_id = m.id "
                "AND e.space_id = {space}",
                space=space.pk,
            )
        ),
    )


def _context(space: EmbeddingSpace) -> Sql:
    """The cosine of the messages a memory was said in (extracted from or restated by; the
    nearest of them), read whole: "and it's currently at 180 ms under 20 concurrent
    requests" is about the login API its message names. A memory without such a vector
    (consolidated from many, stored before messages had vectors, a message that yielded it
    alone) is its own context."""
    return sql(
        "greatest(0, coalesce((SELECT max(1 - ({distance})) FROM memories_evidence x "
        "JOIN memories_eventembedding said ON said.event_id = x.event_id "
        "AND said.space_id = {space} WHERE x.memory_id = m.id AND x.role <> {consolidated}), "
        "1 - ({own})))",
        distance=Sql(space.distance_sql(AGAINST.text, column="said.vector")),
        space=space.pk,
        consolidated="consolidated",
        own=Sql(space.distance_sql(AGAINST.text, column="e.vector")),
    )


def _components(search: Search) -> Sql:
    """The components a memory's own row gives: recency to past (COMPONENTS)."""
    return sql(
        "{recency} AS c_recency, "
        "coalesce(ln(1 + m.usage_count) / nullif(ln(1 + max(m.usage_count) OVER ()), 0), 0) "
        "AS c_usage, m.confidence::float8 AS c_confidence, m.importance::float8 AS c_importance, "
        "{canonicity} AS c_canonicity, "
        "(m.speaker <> '' AND lower(m.speaker) = ANY({speakers}::text[]))::int::float8 "
        "AS c_speaker, "
        "(m.tags && {tags}::varchar[] OR ({when} AND m.occurred_on IS NOT NULL))::int::float8 "
        "AS c_answer, (m.category = ANY({categories}::varchar[]))::int::float8 AS c_advice, "
        "{window} AS c_window, "
        "CASE WHEN {beginning} THEN 1 - percent_rank() OVER (ORDER BY m.observed_at, m.created_at) "
        "ELSE 0 END::float8 AS c_early, {topic} AS c_topic, "
        "(m.expires_at IS NOT NULL AND m.expires_at <= {now})::int::float8 AS c_past",
        recency=Sql(
            recency_sql("m.last_seen_at"),
            (search.now, float(setting("RECENCY_HALF_LIFE_DAYS"))),
        ),
        canonicity=Sql(canonicity_sql("m.status")),
        speakers=list(search.speakers),
        tags=list(search.expected.tags),
        when=search.expected.when,
        categories=list(search.expected.categories),
        window=_in_window(search.window),
        beginning=search.beginning,
        topic=_on_topic(search),
        now=search.now,
    )


def _on_topic(search: Search) -> Sql:
    """How much a memory is about what the question is about: the overlap of the two
    readings (the sum, over topics, of the smaller of the two probabilities), in [0, 1],
    over the topics of the cardinalities ``SEARCH_TOPIC_CARDINALITIES`` names that the
    question reads as at least ``SEARCH_TOPIC_MIN`` likely (a question about nothing in
    particular, "What did she do last weekend?", leans on no topic).
    "Where does she live now?" reads as residence; "We moved to Bussolengo two months ago"
    does too, whatever words each uses and in whichever language."""
    counted = set(str(setting("SEARCH_TOPIC_CARDINALITIES")).split(","))
    surely = float(setting("SEARCH_TOPIC_MIN"))
    topics = [(t, p) for t, p in search.topics if BY_NAME[t].cardinality in counted and p >= surely]
    if not topics:
        return Sql("0::float8")
    names, probabilities = zip(*topics, strict=True)
    return sql(
        "coalesce((SELECT sum(least(q.p, coalesce((m.topics ->> q.t)::float8, 0))) "
        "FROM unnest({names}::text[], {probabilities}::float8[]) AS q(t, p)), 0)::float8",
        names=list(names),
        probabilities=list(probabilities),
    )


def _in_window(window: Window | None) -> Sql:
    """In the query's window: 1 inside, 0.5 within its slack either side, else 0 (and 0 for
    all when the query names no days)."""
    first, last, slack = (window.first, window.last, window.slack) if window else (None,) * 3
    return sql(
        "(CASE WHEN {first}::date IS NULL THEN 0 "
        "WHEN {happened} BETWEEN {first}::date AND {last}::date THEN 1 "
        "WHEN {happened} BETWEEN {first}::date - {slack}::int AND {last}::date + {slack}::int "
        "THEN 0.5 ELSE 0 END)::float8",
        first=first,
        last=last,
        slack=slack,
        happened=HAPPENED,
    )


def _base(weights: dict) -> Sql:
    """The weighted sum of the components; a penalty's weight is subtracted."""
    return Sql(" + ").join(
        sql(
            "{weight} * {component}",
            weight=float(weights.get(name, 0.0)) * (-1 if name in PENALTIES else 1),
            component=Sql(f"c_{name}"),
        )
        for name in COMPONENTS
    )


def _said_in(search: Search) -> Sql:
    """The CTE ``said``: for each of the best, the vector of the message it was taken from
    (its own when it has none: consolidated, stored before messages had vectors, a message
    that yielded it alone, or MESSAGE_VECTORS off). Two memories whose messages are close
    speak of the same thing even when each is one clause of its message ("I'm trying to
    manage my monthly spending on keto-friendly nuts and seeds", said with "which has
    increased to $220")."""
    space = search.space
    if space is None or not setting("MESSAGE_VECTORS"):
        return Sql("said AS (SELECT b.id, b.vector FROM best b)")
    return sql(
        "said AS MATERIALIZED (SELECT b.id, coalesce((SELECT m.vector FROM memories_evidence x "
        "JOIN memories_eventembedding m ON m.event_id = x.event_id AND m.space_id = {space} "
        "WHERE x.memory_id = b.id AND x.role = {extracted} ORDER BY x.created_at LIMIT 1), "
        "b.vector) AS vector FROM best b)",
        space=space.pk,
        extracted="extracted",
    )


def _best_rows(short: Sql) -> Sql:
    """The best rows, each with the events it rests on (one result per event: the pick),
    the others close to it among the best (their own cosine or their messages' ≥
    CLOSE_FLOOR: both cosines), the relevance figures and ``short``."""
    return sql(
        "SELECT {columns}, b.base, {components}, "
        "relevance.best_semantic, relevance.best_context, relevance.best_coverage, "
        "relevance.candidates, relevance.best_topic, close.ids, close.cosines, close.said, "
        "told.events, short.flag "
        "FROM best b JOIN said bs ON bs.id = b.id "
        "LEFT JOIN LATERAL (SELECT array_agg(ev.event_id) AS events FROM memories_evidence ev "
        "WHERE ev.memory_id = b.id) told ON true LEFT JOIN "
        "LATERAL (SELECT array_agg(o.id) AS ids, array_agg(o.cosine) AS cosines, "
        "array_agg(o.said) AS said FROM ("
        "SELECT o.id, 1 - (b.vector <=> o.vector) AS cosine, 1 - (bs.vector <=> os.vector) "
        "AS said FROM best o JOIN said os ON os.id = o.id WHERE o.id <> b.id) o "
        "WHERE o.cosine >= {close} OR o.said >= {close}) close ON true, "
        "{relevance} relevance, (SELECT {short} AS flag) short ORDER BY b.base DESC, b.id",
        columns=Sql(", ".join(f"b.{name}" for name in SCORED_COLUMNS)),
        components=Sql(", ".join(f"b.c_{name}" for name in COMPONENTS)),
        close=CLOSE_FLOOR,
        relevance=_relevance(),
        short=short,
    )


def _relevance() -> Sql:
    """What the relevance floor weighs (``floor.Relevance``), over every candidate, however
    many the search reads for its k (a larger k must not turn "nothing" into an answer:
    the nearest ``CANDIDATE_POOL``, which every search reads): the best cosine of a memory
    and of its message, the best share of the query's word weight, how many there were,
    and the best topic overlap of a candidate not far in meaning (``TOPIC_NEAR``)."""
    return sql(
        "(SELECT max(n.c_semantic) AS best_semantic, max(n.c_context) AS best_context, "
        "(SELECT max(c_coverage) FROM scored) AS best_coverage, count(*) AS candidates, "
        "coalesce(max(n.c_topic) FILTER (WHERE greatest(n.c_semantic, n.c_context) >= {near}), "
        "0) AS best_topic FROM (SELECT c_semantic, c_context, c_topic FROM scored "
        "ORDER BY c_semantic DESC LIMIT {floor_pool}) n)",
        near=TOPIC_NEAR,
        floor_pool=CANDIDATE_POOL,
    )
