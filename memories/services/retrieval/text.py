"""The full-text half of a search: the query's terms weighed by their rarity among the
client's memories (idf, from ``LexemeCount``), the text candidates, and BM25 over a
memory's words, its speaker's name and the turn it answers."""

from __future__ import annotations

from uuid import UUID

from memories.conf import setting
from memories.languages import ALL_CONFIGS
from memories.services.retrieval.sql import Sql, sql

# BM25 (Robertson's k1 and b). b as for documents: a memory can be a short statement or a
# pasted listing a hundred times longer, whose many words would otherwise match every
# question about its project (measured: docs/decisions/0038).
BM25_K1, BM25_B = 1.2, 0.75
# A term in more than this share of the client's memories is not looked up (see text_ctes).
COMMON_SHARE = 0.1


def text_ctes(
    *,
    client: UUID,
    words: str,
    blind_readings: tuple[tuple[str, str, int], ...] | None,
    text_config: str,
    where: Sql,
    pool: int,
) -> list[Sql]:
    """The query's terms weighed by their rarity among the client's memories (idf, from
    ``LexemeCount``), and the text candidates: the ``pool`` best BM25 scores among the
    memories matching ``where`` that hold one of its rarer terms.

    Terms in more than COMMON_SHARE of the client's memories are not looked up (the
    rarest one always is): they tell little, and their matches were most of the cost.
    Terms are the query's lexemes scoped by client like the stored ones (migration 0010);
    an encrypted tenant's blind tokens (``blind_readings``) are lexemes already.

    Each memory is stemmed in its own language (``memories.languages``), so the query is
    read in every configuration the client's memories are indexed in (``LexemeCount``
    counts them: a few primary-key lookups) and in the tenant's (``text_config``):
    "investimento" is 'invest' in Italian and 'investimento' in English, and either may be
    what a memory holds. The readings are ORed; a lexeme two readings share is one term,
    with one idf. Each reading keeps the position of each word (``readings``), so that the
    relevance floor can tell which words of the query a memory holds, in whichever reading
    (``COVERAGE_JOIN``). The statement's text is the same whatever the languages (they
    are a parameter): one prepared plan."""
    scope = sql("left(replace({client}::text, '-', ''), 12)", client=client)
    if blind_readings is None:
        found = sql(
            "SELECT g.config, u.lexeme AS l, p AS position FROM configs g "
            "CROSS JOIN LATERAL unnest(to_tsvector(g.config::regconfig, {words})) AS u "
            "CROSS JOIN LATERAL unnest(u.positions) AS p",
            words=words,
        )
    else:
        configs, tokens, positions = (list(c) for c in zip(*blind_readings, strict=True))
        found = sql(
            "SELECT t.config, t.l, t.position FROM unnest({configs}::text[], {tokens}::text[], "
            "{positions}::int[]) AS t(config, l, position) JOIN configs g ON g.config = t.config",
            configs=configs,
            tokens=tokens,
            positions=positions,
        )
    return [
        sql(
            "configs AS MATERIALIZED (SELECT g.config FROM unnest({all}::text[]) AS g(config) "
            "WHERE g.config = {tenant} OR EXISTS (SELECT 1 FROM memories_lexemecount c "
            "WHERE c.lexeme = {scope} || ': ' || g.config AND c.documents > 0))",
            all=list(ALL_CONFIGS),
            tenant=text_config,
            scope=scope,
        ),
        sql(
            "readings AS MATERIALIZED (SELECT DISTINCT f.config, "
            "{scope} || ':' || f.l AS lexeme, f.l, f.position FROM ({found}) f)",
            scope=scope,
            found=found,
        ),
        sql(
            "terms AS MATERIALIZED (SELECT DISTINCT r.lexeme, "
            "memory_search_lexeme({client}::uuid, r.l)::tsquery AS q FROM readings r)",
            client=client,
        ),
        sql(
            "corpus AS MATERIALIZED (SELECT greatest(coalesce((SELECT c.documents "
            "FROM memories_lexemecount c WHERE c.lexeme = {scope} || ':'), 0), 1)::float8 AS n)",
            scope=scope,
        ),
        # One primary-key lookup per term: the planner cannot tell how few terms the
        # readings make, and a join could read the whole table instead.
        Sql(
            "idf AS MATERIALIZED (SELECT t.lexeme, t.q, t.df, "
            "ln(1 + (corpus.n - t.df + 0.5) / (t.df + 0.5)) AS w FROM (SELECT t.lexeme, t.q, "
            "coalesce((SELECT c.documents FROM memories_lexemecount c "
            "WHERE c.lexeme = t.lexeme), 0) AS df FROM terms t) t CROSS JOIN corpus)"
        ),
        # Each reading's whole weight: what a memory in that language could hold.
        Sql(
            "query_weight AS MATERIALIZED (SELECT r.config, sum(i.w) AS total FROM "
            "(SELECT DISTINCT config, lexeme FROM readings) r JOIN idf i ON i.lexeme = r.lexeme "
            "GROUP BY r.config)"
        ),
        sql(
            "searched AS MATERIALIZED (SELECT string_agg(i.q::text, ' | ')::tsquery AS q "
            "FROM idf i WHERE i.df > 0 AND (i.df <= {common} * (SELECT n FROM corpus) "
            "OR i.lexeme = (SELECT lexeme FROM idf WHERE df > 0 ORDER BY df, lexeme LIMIT 1)))",
            common=COMMON_SHARE,
        ),
        # The scoped lexemes select the client's memories already; its id is checked on the
        # matches (outside the LIMIT, so the planner does not read the client's every row
        # from a b-tree to intersect with the GIN's).
        sql(
            "matches AS MATERIALIZED (SELECT m.id, m.search_vector FROM (SELECT m.id, "
            "m.client_id, m.search_vector FROM memories_memory m "
            "WHERE {where} AND m.search_vector @@ (SELECT q FROM searched) LIMIT {ranked}) m "
            "WHERE m.client_id = {client})",
            where=where,
            ranked=int(setting("TEXT_MATCHES_RANKED")),
            client=client,
        ),
        Sql(
            "text_stats AS MATERIALIZED (SELECT "
            "(SELECT avg(length(search_vector)) FROM matches) AS avg_length)"
        ),
        # BM25 of every match in one join (the query's few terms against each match's
        # lexemes), not one subquery per match: the same scores as bm25_of_m.
        sql(
            "text_pool AS MATERIALIZED (SELECT s.id FROM ({matches}) s "
            "ORDER BY s.bm25 DESC, s.id LIMIT {pool})",
            matches=_bm25(BM25_OF_MATCHES),
            pool=pool,
        ),
    ]


# BM25 of the memory ``m`` (its search_vector) for the query's terms (``idf``): the memory's
# own words and its speaker's name count once, the turn it answers TEXT_CONTEXT_WEIGHT.
BM25_OF_M = (
    "(SELECT coalesce(sum(i.w * t.tf * {k1_1} / (t.tf + {k1} * (1 - {b} + {b} * "
    "length(m.search_vector) / greatest(1, (SELECT avg_length FROM text_stats))))), 0) "
    "FROM (SELECT u.lexeme, (SELECT sum(CASE x WHEN 'D' THEN {context} ELSE 1 END) "
    "FROM unnest(u.weights) AS x) AS tf FROM unnest(m.search_vector) AS u) t "
    "JOIN idf i ON i.lexeme = t.lexeme)"
)
# BM25_OF_M of each of ``matches``, as rows (id, bm25).
BM25_OF_MATCHES = (
    "SELECT m.id, sum(i.w * t.tf * {k1_1} / (t.tf + {k1} * (1 - {b} + {b} * "
    "length(m.search_vector) / greatest(1, (SELECT avg_length FROM text_stats))))) AS bm25 "
    "FROM matches m CROSS JOIN LATERAL unnest(m.search_vector) AS u "
    "JOIN idf i ON i.lexeme = u.lexeme "
    "CROSS JOIN LATERAL (SELECT sum(CASE x WHEN 'D' THEN {context} ELSE 1 END) AS tf "
    "FROM unnest(u.weights) AS x) t GROUP BY m.id"
)
# The share of the query's term weight the memory ``m`` holds (for the relevance floor), in
# the reading it answers best, and that reading's whole weight (``total``, for TEXT_SCALE
# "query"), joined as ``coverage``. A word of the query is held when the memory holds its
# lexeme in any reading (Italian 'invest' answers "investimento" in the English reading
# too): readings that each hold half of a question do not make it half answered. No row
# for a memory holding none of the terms, or a query with no weight at all (only words
# the text search skips, "the", "out").
COVERAGE_JOIN = Sql(
    "LEFT JOIN LATERAL (SELECT h.held / w.total AS share, w.total FROM (SELECT x.config, "
    "sum(i.w) AS held FROM (SELECT DISTINCT r.config, r.lexeme FROM readings r "
    "WHERE r.position IN (SELECT k.position FROM readings k "
    "WHERE k.lexeme = ANY(tsvector_to_array(m.search_vector)))) x "
    "JOIN idf i ON i.lexeme = x.lexeme GROUP BY x.config) h "
    "JOIN query_weight w ON w.config = h.config WHERE w.total > 0 "
    "ORDER BY h.held / w.total DESC LIMIT 1) coverage ON true"
)


def bm25_of_m() -> Sql:
    """BM25_OF_M with its parameters (BM25's k1 and b, and TEXT_CONTEXT_WEIGHT)."""
    return _bm25(BM25_OF_M)


def text_scaled() -> Sql:
    """BM25 in [0, 1]: against the best candidate's (``best``: the top text match scores 1
    however weak), or against the query's whole word weight in the reading the memory
    answers best (``query``: a memory holding every term of the query, once, scores about
    1)."""
    if setting("TEXT_SCALE") == "query":
        return Sql("least(1, coalesce(text_raw / nullif(text_total, 0), 0))")
    return Sql("coalesce(text_raw / nullif(max(text_raw) OVER (), 0), 0)")


def _bm25(template: str) -> Sql:
    return sql(
        template,
        k1_1=BM25_K1 + 1,
        k1=BM25_K1,
        b=BM25_B,
        context=float(setting("TEXT_CONTEXT_WEIGHT")),
    )
