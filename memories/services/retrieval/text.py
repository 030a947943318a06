"""The full-text half of a search: the query's terms weighed by their rarity among the
client's memories (idf, from ``LexemeCount``), the text candidates, and BM25 over a
memory's words, its speaker's name and the turn it answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memories.conf import setting
from memories.languages import ALL_CONFIGS

if TYPE_CHECKING:
    from memories.services.retrieval.query import Search

# BM25 (Robertson's k1 and b; b low, as statements vary less in length than documents),
BM25_K1, BM25_B = 1.2, 0.4
# A term in more than this share of the client's memories is not looked up (see _text_ctes).
COMMON_SHARE = 0.1


def text_ctes(search: Search, where: str, where_params: list) -> list[tuple[str, list]]:
    """The query's terms weighed by their rarity among the client's memories (idf, from
    ``LexemeCount``), and the text candidates: the best BM25 scores among the memories
    that hold one of its rarer terms.

    Terms in more than COMMON_SHARE of the client's memories are not looked up (the
    rarest one always is): they tell little, and their matches were most of the cost.
    Terms are the query's lexemes scoped by client like the stored ones (migration 0010);
    an encrypted tenant's blind tokens are lexemes already.

    Each memory is stemmed in its own language (``memories.languages``), so the query is
    read in every configuration the client's memories are indexed in (``LexemeCount``
    counts them: a few primary-key lookups) and in the tenant's: "investimento" is
    'invest' in Italian and 'investimento' in English, and either may be what a memory
    holds. The readings are ORed; a lexeme two readings share is one term, with one idf.
    Each reading keeps the position of each word (``readings``), so that the relevance
    floor can tell which words of the query a memory holds, in whichever reading
    (``COVERAGE_JOIN``). The statement's text is the same whatever the languages (they
    are a parameter): one prepared plan."""
    client = search.client.pk
    scope = "left(replace(%s::text, '-', ''), 12)"
    if search.blind_readings is None:
        found = (
            "SELECT g.config, u.lexeme AS l, p AS position FROM configs g "
            "CROSS JOIN LATERAL unnest(to_tsvector(g.config::regconfig, %s)) AS u "
            "CROSS JOIN LATERAL unnest(u.positions) AS p"
        )
        found_params: list = [search.words]
    else:
        found = (
            "SELECT t.config, t.l, t.position FROM unnest(%s::text[], %s::text[], %s::int[]) "
            "AS t(config, l, position) JOIN configs g ON g.config = t.config"
        )
        found_params = [list(column) for column in zip(*search.blind_readings, strict=True)]
    return [
        (
            "configs AS MATERIALIZED (SELECT g.config FROM unnest(%s::text[]) AS g(config) "  # noqa: S608
            "WHERE g.config = %s OR EXISTS (SELECT 1 FROM memories_lexemecount c "
            f"WHERE c.lexeme = {scope} || ': ' || g.config AND c.documents > 0))",
            [list(ALL_CONFIGS), search.text_config, client],
        ),
        (
            "readings AS MATERIALIZED (SELECT DISTINCT f.config, "  # noqa: S608
            f"{scope} || ':' || f.l AS lexeme, f.l, f.position FROM ({found}) f)",
            [client, *found_params],
        ),
        (
            "terms AS MATERIALIZED (SELECT DISTINCT r.lexeme, "
            "memory_search_lexeme(%s::uuid, r.l)::tsquery AS q FROM readings r)",
            [client],
        ),
        (
            "corpus AS MATERIALIZED (SELECT greatest(coalesce((SELECT c.documents "  # noqa: S608
            f"FROM memories_lexemecount c WHERE c.lexeme = {scope} || ':'), 0), 1)::float8 AS n)",
            [client],
        ),
        (
            # One primary-key lookup per term: the planner cannot tell how few terms the
            # readings make, and a join could read the whole table instead.
            "idf AS MATERIALIZED (SELECT t.lexeme, t.q, t.df, "
            "ln(1 + (corpus.n - t.df + 0.5) / (t.df + 0.5)) AS w FROM (SELECT t.lexeme, t.q, "
            "coalesce((SELECT c.documents FROM memories_lexemecount c "
            "WHERE c.lexeme = t.lexeme), 0) AS df FROM terms t) t CROSS JOIN corpus)",
            [],
        ),
        (
            # Each reading's whole weight: what a memory in that language could hold.
            "query_weight AS MATERIALIZED (SELECT r.config, sum(i.w) AS total FROM "
            "(SELECT DISTINCT config, lexeme FROM readings) r JOIN idf i ON i.lexeme = r.lexeme "
            "GROUP BY r.config)",
            [],
        ),
        (
            "searched AS MATERIALIZED (SELECT string_agg(i.q::text, ' | ')::tsquery AS q "
            "FROM idf i WHERE i.df > 0 AND (i.df <= %s * (SELECT n FROM corpus) "
            "OR i.lexeme = (SELECT lexeme FROM idf WHERE df > 0 ORDER BY df, lexeme LIMIT 1)))",
            [COMMON_SHARE],
        ),
        (
            # The scoped lexemes select the client's memories already; its id is checked
            # on the matches (outside the LIMIT, so the planner does not read the client's
            # every row from a b-tree to intersect with the GIN's).
            "matches AS MATERIALIZED (SELECT m.id, m.search_vector FROM (SELECT m.id, "  # noqa: S608
            "m.client_id, m.search_vector FROM memories_memory m "
            f"WHERE {where} AND m.search_vector @@ (SELECT q FROM searched) LIMIT %s) m "
            "WHERE m.client_id = %s)",
            [*where_params, int(setting("TEXT_MATCHES_RANKED")), client],
        ),
        (
            "text_stats AS MATERIALIZED (SELECT "
            "(SELECT avg(length(search_vector)) FROM matches) AS avg_length)",
            [],
        ),
        (
            # BM25 of every match in one join (the query's few terms against each match's
            # lexemes), not one subquery per match: the same scores as BM25_OF_M.
            f"text_pool AS MATERIALIZED (SELECT s.id FROM ({BM25_OF_MATCHES}) s "  # noqa: S608
            "ORDER BY s.bm25 DESC, s.id LIMIT %s)",
            [*bm25_params(), max(4 * search.k, 40)],
        ),
    ]


# BM25 of the memory ``m`` (its search_vector) for the query's terms (``idf``): the memory's
# own words and its speaker's name count once, the turn it answers TEXT_CONTEXT_WEIGHT.
BM25_OF_M = (
    "(SELECT coalesce(sum(i.w * t.tf * %s / (t.tf + %s * (1 - %s + %s * "
    "length(m.search_vector) / greatest(1, (SELECT avg_length FROM text_stats))))), 0) "
    "FROM (SELECT u.lexeme, (SELECT sum(CASE x WHEN 'D' THEN %s ELSE 1 END) "
    "FROM unnest(u.weights) AS x) AS tf FROM unnest(m.search_vector) AS u) t "
    "JOIN idf i ON i.lexeme = t.lexeme)"
)
# BM25_OF_M of each of ``matches``, as rows (id, bm25).
BM25_OF_MATCHES = (
    "SELECT m.id, sum(i.w * t.tf * %s / (t.tf + %s * (1 - %s + %s * "
    "length(m.search_vector) / greatest(1, (SELECT avg_length FROM text_stats))))) AS bm25 "
    "FROM matches m CROSS JOIN LATERAL unnest(m.search_vector) AS u "
    "JOIN idf i ON i.lexeme = u.lexeme "
    "CROSS JOIN LATERAL (SELECT sum(CASE x WHEN 'D' THEN %s ELSE 1 END) AS tf "
    "FROM unnest(u.weights) AS x) t GROUP BY m.id"
)
# The share of the query's term weight the memory ``m`` holds (for the relevance floor), in
# the reading it answers best, and that reading's whole weight (``total``, for TEXT_SCALE
# "query"), joined as ``coverage``. A word of the query is held when the memory holds its
# lexeme in any reading (Italian 'invest' answers "investimento" in the English reading
# too): readings that each hold half of a question do not make it half answered. No row
# for a memory holding none of the terms, or a query with no weight at all (only words
# the text search skips, "the", "out").
COVERAGE_JOIN = (
    "LEFT JOIN LATERAL (SELECT h.held / w.total AS share, w.total FROM (SELECT x.config, "
    "sum(i.w) AS held FROM (SELECT DISTINCT r.config, r.lexeme FROM readings r "
    "WHERE r.position IN (SELECT k.position FROM readings k "
    "WHERE k.lexeme = ANY(tsvector_to_array(m.search_vector)))) x "
    "JOIN idf i ON i.lexeme = x.lexeme GROUP BY x.config) h "
    "JOIN query_weight w ON w.config = h.config WHERE w.total > 0 "
    "ORDER BY h.held / w.total DESC LIMIT 1) coverage ON true"
)


def text_scaled() -> str:
    """BM25 in [0, 1]: against the best candidate's (``best``: the top text match scores 1
    however weak), or against the query's whole word weight in the reading the memory
    answers best (``query``: a memory holding every term of the query, once, scores about
    1)."""
    if setting("TEXT_SCALE") == "query":
        return "least(1, coalesce(text_raw / nullif(text_total, 0), 0))"
    return "coalesce(text_raw / nullif(max(text_raw) OVER (), 0), 0)"


def bm25_params() -> list:
    return [BM25_K1 + 1, BM25_K1, BM25_B, BM25_B, float(setting("TEXT_CONTEXT_WEIGHT"))]
