"""Recall's reads on PostgreSQL, run on the asyncpg connection itself: nodes and briefs by
id, the edges around a frontier, embeddings, the HNSW search and the keyword search.

A recall makes about seven of these. At 100k nodes each took 2-10 ms through SQLAlchemy
Core, of which PostgreSQL's share was 0.3-2 ms: the rest was building and compiling the
statement, the adapter's cursor, and per-value result processing into ``Row`` objects and
then into domain objects (measured). Here each read is a statement whose text depends only
on the shape of the request (asyncpg prepares it once per connection and reuses it), and
rows become domain objects in one step.

Filters are rendered from the same terms as the SQLAlchemy queries (filter_sql.py); the store
conformance suite and the seed filter table hold both to the same answers on PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from memlane.domain.model import Edge, Node, NodeBrief, SeedFilter
from memlane.domain.node_fields import NODE_FIELDS
from memlane.store.base import Vector
from memlane.store.bm25 import K1, B
from memlane.store.postgres.filter_sql import Params, to_sql_text
from memlane.store.schema import NODE_BRIEF_FIELDS

#: Node's fields in order, so a row is the constructor's arguments (JSONB arrives decoded:
#: SQLAlchemy's asyncpg dialect installs a codec on every connection)
_NODE_FIELDS = list(NODE_FIELDS)
_NODE_SQL = f"SELECT {', '.join(_NODE_FIELDS)} FROM nodes WHERE tenant_id = $1 AND id = ANY($2::varchar[])"
_BRIEF_SQL = f"SELECT scope, {', '.join(NODE_BRIEF_FIELDS)} FROM nodes WHERE tenant_id = $1 AND id = ANY($2::varchar[])"
_EMBEDDING_SQL = (
    "SELECT id, embedding FROM nodes WHERE tenant_id = $1 AND scope = $2 AND id = ANY($3::varchar[]) "
    "AND embedding IS NOT NULL"
)
#: Edge's fields in order, so a row is the constructor's arguments
_EDGE_COLUMNS = [f.name for f in dataclasses.fields(Edge)]
# One statement for both directions, the order and the limit applied by PostgreSQL: a bitmap
# OR of the two endpoint indexes, and no more rows on the wire than the caller keeps. Ties
# break on the id's bytes (COLLATE "C"), as Python's sort of the SQLAlchemy path does.
_EDGES_SQL = (
    f"SELECT {', '.join(_EDGE_COLUMNS)} FROM edges "
    "WHERE tenant_id = $1 AND (src_id = ANY($2::varchar[]) OR dst_id = ANY($2::varchar[])) AND scope = $3 "
    "AND weight >= $4 AND confidence >= $5 {types}"
    'ORDER BY weight * confidence DESC, id COLLATE "C" LIMIT $6'
)
_EDGES_ANY_TYPE = _EDGES_SQL.format(types="")
_EDGES_OF_TYPES = _EDGES_SQL.format(types="AND type = ANY($7::varchar[]) ")


def _where(p: Params, tenant_id: str, scope: str, flt: SeedFilter) -> str:
    """The tenant and scope, then the filter's term (filter_sql.py)."""
    return f"tenant_id = {p.add(tenant_id)} AND scope = {p.add(scope)} AND {to_sql_text(flt.term(), p)}"


def nearest_statements(
    tenant_id: str, scope: str, query: np.ndarray, k: int, flt: SeedFilter, *, kind: str, dim: int
) -> tuple[str, str, list[Any]]:
    """The ANN statement through the HNSW index on ``embedding::<kind>(<dim>)``
    (``vector(384)``), its exact twin, and their arguments."""
    p = Params()
    where = _where(p, tenant_id, scope, flt)
    vector_type = f"{kind}({int(dim)})"
    # literals, not parameters: the planner must see them to use the partial index
    where += f" AND embedding_status = 'ready' AND embedding_dim = {int(dim)}"
    distance = f"embedding::{vector_type} <=> {p.add(query, '::' + vector_type)}"
    limit = p.add(k)
    head = f"SELECT id, {distance} AS distance FROM nodes WHERE {where} "
    # An ORDER BY the index cannot serve keeps the planner off the HNSW index.
    return f"{head}ORDER BY {distance} LIMIT {limit}", f"{head}ORDER BY ({distance}) + 0 LIMIT {limit}", p.values


async def nearest(
    conn: Any,
    tenant_id: str,
    scope: str,
    query: np.ndarray,
    k: int,
    flt: SeedFilter,
    *,
    kind: str,
    dim: int,
    settings: str,
) -> list[tuple[str, float | None]]:
    """``(id, cosine distance)`` of the ``k`` nearest ready nodes, exact when the index
    falls short.

    ``settings`` are ``SET LOCAL`` statements for the search; transaction-local, so they hold
    behind a transaction pooler too and never leak to the connection's next user."""
    ann, exact, args = nearest_statements(tenant_id, scope, query, k, flt, kind=kind, dim=dim)
    async with conn.transaction():
        await conn.execute(settings)
        rows = await conn.fetch(ann, *args)
        if len(rows) < k:
            # The index may stop early under a restrictive filter (pgvector scans at most
            # hnsw.max_scan_tuples); an exact scan of the filtered rows settles it.
            rows = await conn.fetch(exact, *args)
    return [(r[0], r[1]) for r in rows]


_TERM_COUNT_SQL = (
    "SELECT w, (SELECT count(*) FROM (SELECT 1 FROM nodes WHERE tsv @@ to_tsquery('english'::regconfig, w) "
    "LIMIT $2) AS m)::int FROM unnest($1::text[]) AS w"
)
# The planner's statistics of ``tsv`` (ANALYZE samples the table): the most common lexemes
# with the share of rows holding each. A word counts only if each of its lexemes is listed.
_FREQUENT_SQL = (
    "WITH stats AS (SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs, "
    "c.reltuples FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename "
    "AND c.relnamespace = s.schemaname::regnamespace "
    "WHERE s.schemaname = current_schema() AND s.tablename = 'nodes' AND s.attname = 'tsv'), "
    "words AS (SELECT w, tsvector_to_array(to_tsvector('english'::regconfig, w)) AS lexemes "
    "FROM unnest($1::text[]) AS w) "
    "SELECT words.w, round(min(stats.freqs[i]) * max(stats.reltuples))::bigint FROM words "
    "CROSS JOIN stats CROSS JOIN LATERAL unnest(words.lexemes) AS l(lexeme) "
    "CROSS JOIN LATERAL array_position(stats.elems, l.lexeme) AS i "
    "WHERE i IS NOT NULL GROUP BY words.w HAVING count(*) = max(cardinality(words.lexemes))"
)


async def term_counts(conn: Any, words: Sequence[str], cap: int) -> dict[str, int]:
    """Documents (every tenant) containing each word, counted up to ``cap``; one round trip.
    A stop word counts 0 (its query is empty and matches nothing)."""
    return {r[0]: r[1] for r in await conn.fetch(_TERM_COUNT_SQL, list(words), cap)}


async def frequent_words(conn: Any, words: Sequence[str], above: int) -> dict[str, int]:
    """The words the planner's statistics estimate in more than ``above`` documents (every
    tenant), with that estimate; the others are left out (rarer, unknown to the statistics,
    or never analysed).

    Counting a word reads the row of every document it matches: a word in 27,000 of 530,000
    nodes took 120 ms. The statistics name the common words for free; only the rest are
    counted, and their count is bounded by the statistics' cut-off (below 0.1% of the rows
    at 1M nodes). A sampled estimate is close, not exact, so ``above`` is set well over the
    bound the caller tests."""
    rows = await conn.fetch(_FREQUENT_SQL, list(words))
    return {r[0]: int(r[1]) for r in rows if r[1] is not None and r[1] > above}


#: the scope's documents and their mean length (characters of title and summary); the mean
#: over at most this many of its rows, so a large scope is never read whole for it
SCOPE_LENGTH_SAMPLE = 10_000
_SCOPE_STATS_SQL = (
    "SELECT (SELECT count(*) FROM nodes WHERE tenant_id = $1 AND scope = $2)::bigint, "
    "(SELECT avg(length(coalesce(title, '')) + length(coalesce(text_summary, ''))) FROM "
    "(SELECT title, text_summary FROM nodes WHERE tenant_id = $1 AND scope = $2 LIMIT $3) AS s)::float8"
)


async def scope_stats(conn: Any, tenant_id: str, scope: str) -> tuple[int, float]:
    """BM25's document count and average length for one scope (store/bm25.py)."""
    row = await conn.fetchrow(_SCOPE_STATS_SQL, tenant_id, scope, SCOPE_LENGTH_SAMPLE)
    return int(row[0] or 0), float(row[1] or 0.0)


def keyword_statement(
    tenant_id: str,
    scope: str,
    match: str,
    rank_words: Sequence[str],
    k: int,
    flt: SeedFilter,
    *,
    docs: int,
    average_length: float,
    doc_freqs: Sequence[int] | None = None,
    candidates: int | None = None,
) -> tuple[str, list[Any]]:
    """The statement for ``keyword_ranked`` and its arguments: ``(id, BM25 score)`` of the
    ``k`` best documents matching ``match`` (words joined by ``|``, ``&``, ``!`` and
    parentheses; the words are letters and digits only, nothing ``to_tsquery`` reads as an
    operator) that the filter admits, scored by ``rank_words`` exactly as SQLite scores them
    (store/bm25.py: ``docs`` and ``average_length`` are the scope's).

    A word's document frequency is counted among the matches, all of the scope's documents
    that hold it when ``match`` is the any-word query of ``rank_words`` (the filter applies to
    the ranked documents only, as on SQLite); with ``candidates`` only the first that many
    matches (in the table's order) are read and ranked, and ``doc_freqs`` give the words'
    frequencies instead.

    ``ts_rank`` ranked here before: without idf a speaker's name in every title weighed as
    much as the one rare word a question asks about, and its flat scores left the keyword
    list no clear winner in the fusion (LoCoMo evidence recall R@10 0.65 against SQLite's
    0.77; BENCHMARKS.md).

    Each query is parsed once, in a sub-select (an InitPlan) or a materialised CTE. Written
    inline, the generic plan of the prepared statement (asyncpg prepares it; PostgreSQL
    switches to the generic plan after five runs) calls ``to_tsquery`` again for every
    candidate row (docs/architecture.md, "Keyword search on PostgreSQL at 1M nodes")."""
    p = Params()
    matches = _matches_sql(p, tenant_id, scope, match, flt, candidates)
    weights = _word_weights_sql(p, rank_words, doc_freqs, docs)
    mean = p.add(average_length or 1.0, "::float8")
    k1, b = f"{K1}::float8", f"{B}::float8"
    sql = (
        f"WITH {matches}, {weights} "
        "SELECT m.id, (SELECT coalesce(sum(idf.weight), 0) FROM idf WHERE m.tsv @@ idf.tq) "
        f"* ({k1} + 1) / (1 + {k1} * (1 - {b} + {b} * m.len / {mean})) AS rank FROM m WHERE m.allowed "
        f'ORDER BY rank DESC, m.id COLLATE "C" LIMIT {p.add(k)}'
    )
    return sql, p.values


def _matches_sql(p: Params, tenant_id: str, scope: str, match: str, flt: SeedFilter, candidates: int | None) -> str:
    """The CTE ``m``: the scope's documents matching ``match`` (the first ``candidates`` of
    them when given), with their length and whether the filter admits them."""
    scoped = f"tenant_id = {p.add(tenant_id)} AND scope = {p.add(scope)}"
    allowed = to_sql_text(flt.term(), p)
    matched = f"tsv @@ (SELECT to_tsquery('english'::regconfig, {p.add(match)})) AND {scoped}"
    limit = "" if candidates is None else f" LIMIT {p.add(candidates)}"
    length = "length(coalesce(title, '')) + length(coalesce(text_summary, ''))"
    return (
        f"m AS MATERIALIZED (SELECT id, tsv, ({length})::float8 AS len, coalesce({allowed}, false) AS allowed "
        f"FROM nodes WHERE {matched}{limit})"
    )


def _word_weights_sql(p: Params, rank_words: Sequence[str], doc_freqs: Sequence[int] | None, docs: int) -> str:
    """The CTEs ``q`` (each ranking word parsed once), ``df`` (its document frequency: counted
    among the matches, or given) and ``idf`` (its BM25 weight, as store/bm25.py)."""
    words = p.add(list(rank_words), "::text[]")
    if doc_freqs is None:
        freqs = "(SELECT count(*) FROM m WHERE m.tsv @@ q.tq)"
    else:
        freqs = f"({p.add(list(doc_freqs), '::bigint[]')})[q.i]"
    n = p.add(float(docs), "::float8")
    return (
        "q AS MATERIALIZED (SELECT w.i, to_tsquery('english'::regconfig, w.word) AS tq "
        f"FROM unnest({words}) WITH ORDINALITY AS w(word, i)), "
        f"df AS MATERIALIZED (SELECT q.tq, {freqs}::float8 AS n FROM q), "
        # a cached scope size may trail the scope by a minute's writes: never below a count
        f"idf AS MATERIALIZED (SELECT tq, greatest(ln((greatest({n}, n) - n + 0.5) / (n + 0.5)), 1e-6::float8) "
        "AS weight FROM df)"
    )


async def keyword_ranked(conn: Any, statement: tuple[str, list[Any]]) -> list[tuple[str, float]]:
    """Run a ``keyword_statement``."""
    sql, args = statement
    return [(r[0], float(r[1])) for r in await conn.fetch(sql, *args)]


def _node(record: Any) -> Node:
    node = Node(*record)
    if isinstance(node.slots, str | bytes):  # a connection without the dialect's JSON codec
        node.slots, node.tags = json.loads(node.slots), json.loads(node.tags)
    return node


async def get_nodes(conn: Any, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]:
    wanted = list(dict.fromkeys(ids))
    found: dict[str, Node] = {}
    # by primary key, the scope checked here: the result stays one index lookup
    for record in await conn.fetch(_NODE_SQL, tenant_id, wanted):
        node = _node(record)
        if scope is None or node.scope == scope:
            found[node.id] = node
    return [found[i] for i in ids if i in found]


async def node_briefs(conn: Any, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
    found: dict[str, NodeBrief] = {}
    for record in await conn.fetch(_BRIEF_SQL, tenant_id, list(dict.fromkeys(ids))):
        if record[0] == scope:
            found[record[1]] = NodeBrief(*record[1:])
    return [found[i] for i in ids if i in found]


async def edges_touching(
    conn: Any,
    tenant_id: str,
    scope: str,
    node_ids: Sequence[str],
    *,
    min_weight: float,
    min_confidence: float,
    limit: int,
    types: Sequence[str] | None,
) -> list[Edge]:
    args: list[Any] = [tenant_id, list(dict.fromkeys(node_ids)), scope, min_weight, min_confidence, limit]
    sql = _EDGES_ANY_TYPE
    if types:
        sql = _EDGES_OF_TYPES
        args.append(list(types))
    return [Edge(*record) for record in await conn.fetch(sql, *args)]


async def get_embeddings(conn: Any, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
    rows = await conn.fetch(_EMBEDDING_SQL, tenant_id, scope, list(dict.fromkeys(ids)))
    return {r[0]: np.asarray(r[1], dtype=np.float32) for r in rows}


__all__ = [
    "edges_touching",
    "frequent_words",
    "get_embeddings",
    "get_nodes",
    "keyword_ranked",
    "keyword_statement",
    "nearest",
    "nearest_statements",
    "node_briefs",
    "scope_stats",
    "term_counts",
]
