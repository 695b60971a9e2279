"""BM25's constants and idf, shared by both backends so a keyword ranking never depends on
which database holds the memories (SQLite: sqlite/keyword_rank.py; PostgreSQL: the SQL of
postgres/direct_reads.py).

Both score a document as ``sum of idf(word) x (K1 + 1) / (1 + K1 x (1 - B + B x length /
average length))`` over the query words it holds: a word counts once per document, and
document frequencies, document count and average length are the scope's own. Length is the
characters of title and summary.
"""

from __future__ import annotations

import math

K1 = 1.2
B = 0.75


def idf(docs_with_term: int, docs: int) -> float:
    """FTS5's idf, floored at a tiny positive value so a very common word still counts."""
    value = math.log((docs - docs_with_term + 0.5) / (docs_with_term + 0.5))
    return value if value > 0 else 1e-6


__all__ = ["K1", "B", "idf"]
