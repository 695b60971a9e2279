"""Query words for SQLite's keyword search, and their document counts in ``nodes_fts``.

Which words are ranked with is decided in term_selection.py; counting a word's documents
here reads only its FTS5 posting list (0.4 ms for 5,000).
"""

from __future__ import annotations

import re
import sqlite3

from memlane.store.term_selection import MAX_DOCS_PER_TERM, CountCache, choose_terms

_TOKEN = re.compile(r"[\w']+", re.UNICODE)
#: query words per search (the rest are ignored)
MAX_TERMS = 64


def query_terms(text: str) -> list[str]:
    """Distinct lower-case words of free text, without quotes (quoting makes input inert)."""
    tokens = [t.replace('"', "") for t in _TOKEN.findall(text.lower())]
    return [t for t in dict.fromkeys(tokens) if t.strip("'")][:MAX_TERMS]


class TermCounts:
    """Document counts of words in ``nodes_fts``, cached briefly (they change slowly)."""

    def __init__(self, *, max_docs: int = MAX_DOCS_PER_TERM):
        self.max_docs = max_docs
        self._cache = CountCache()

    def count(self, conn: sqlite3.Connection, term: str) -> int:
        docs = self._cache.get(term)
        if docs is None:
            row = conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?", (f'"{term}"',)).fetchone()
            docs = int(row[0]) if row else 0
            self._cache.put(term, docs)
        return docs

    def clear(self) -> None:
        self._cache.clear()

    def selective(self, conn: sqlite3.Connection, terms: list[str]) -> list[str]:
        """The words to rank with (term_selection.choose_terms)."""
        if self.max_docs <= 0:
            return terms
        return choose_terms([(t, self.count(conn, t)) for t in terms], self.max_docs)
