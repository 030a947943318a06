"""The full-text half of a search: the query's terms weighed by their rarity among the
client's memories (idf, from ``LexemeCount``), the text candidates, and BM25 over a
memory's words, its speaker's name and the turn it answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memories.conf import setting

if TYPE_CHECKING:
    from memories.services.retrieval.statement import Search

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
    an encrypted tenant's blind tokens are lexemes already."""
    client = search.client.pk
    if search.text_config is None:
        lexemes, lexeme_params = "unnest(string_to_array(%s, ' '))", [search.words]
    else:
        lexemes = "unnest(tsvector_to_array(to_tsvector(%s::regconfig, %s)))"
        lexeme_params = [search.text_config, search.words]
    scope = "left(replace(%s::text, '-', ''), 12)"
    return [
        (
            f"terms AS MATERIALIZED (SELECT DISTINCT {scope} || ':' || l AS lexeme, "  # noqa: S608
            f"memory_search_lexeme(%s::uuid, l)::tsquery AS q FROM {lexemes} AS l)",
            [client, client, *lexeme_params],
        ),
        (
            "corpus AS MATERIALIZED (SELECT greatest(coalesce((SELECT c.documents "  # noqa: S608
            f"FROM memories_lexemecount c WHERE c.lexeme = {scope} || ':'), 0), 1)::float8 AS n)",
            [client],
        ),
        (
            "idf AS MATERIALIZED (SELECT t.lexeme, t.q, coalesce(c.documents, 0) AS df, "
            "ln(1 + (corpus.n - coalesce(c.documents, 0) + 0.5) / (coalesce(c.documents, 0) "
            "+ 0.5)) AS w FROM terms t CROSS JOIN corpus "
            "LEFT JOIN memories_lexemecount c ON c.lexeme = t.lexeme)",
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
            "text_stats AS MATERIALIZED (SELECT (SELECT sum(w) FROM idf) AS total, "
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
# The share of the query's term weight the memory ``m`` holds (for the relevance floor):
# 0 of a query with no weight at all (only words the text search skips, "the", "out").
COVERAGE_OF_M = (
    "(SELECT coalesce(sum(i.w) / nullif((SELECT total FROM text_stats), 0), 0) "
    "FROM unnest(tsvector_to_array(m.search_vector)) AS l JOIN idf i ON i.lexeme = l)"
)


def text_scaled() -> str:
    """BM25 in [0, 1]: against the best candidate's (``best``: the top text match scores 1
    however weak), or against the query's whole word weight (``query``: a memory holding
    every term of the query, once, scores about 1)."""
    if setting("TEXT_SCALE") == "query":
        return "least(1, coalesce(text_raw / nullif((SELECT total FROM text_stats), 0), 0))"
    return "coalesce(text_raw / nullif(max(text_raw) OVER (), 0), 0)"


def bm25_params() -> list:
    return [BM25_K1 + 1, BM25_K1, BM25_B, BM25_B, float(setting("TEXT_CONTEXT_WEIGHT"))]
