"""Which query words the keyword search ranks with, so its cost stays bounded.

The search lists, per query word, the documents that contain it (keyword_rank.py); its cost
follows those lists. Words found in very many documents also carry the least weight in BM25
(their idf is a third of a rare word's), so the search leaves out words found in more than
``max_docs`` documents, as long as a rarer word remains; when every word is that common, the
rarest one is kept. Counting a word's documents reads only its posting list (0.4 ms for
5,000), and the counts are cached for a minute.

Counts are over the whole index (every tenant), like the cost they bound; they decide only
which words are scored, never which documents a tenant may see.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections import OrderedDict

_TOKEN = re.compile(r"[\w']+", re.UNICODE)
#: default bound on the documents one query word may match before it is left out
MAX_DOCS_PER_TERM = 2000
#: query words per search (the rest are ignored)
MAX_TERMS = 64
CACHE_SECONDS = 60.0
CACHE_SIZE = 20_000


def query_terms(text: str) -> list[str]:
    """Distinct lower-case words of free text, without quotes (quoting makes input inert)."""
    tokens = [t.replace('"', "") for t in _TOKEN.findall(text.lower())]
    return [t for t in dict.fromkeys(tokens) if t.strip("'")][:MAX_TERMS]


def match_expression(terms: list[str]) -> str | None:
    """An any-term FTS5 query; every word quoted, so nothing in it is FTS5 syntax."""
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


class TermCounts:
    """Document counts of words in ``nodes_fts``, cached briefly (they change slowly)."""

    def __init__(self, *, max_docs: int = MAX_DOCS_PER_TERM):
        self.max_docs = max_docs
        self._cache: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._lock = threading.Lock()  # searches run on worker threads

    def count(self, conn: sqlite3.Connection, term: str) -> int:
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(term)
            if hit is not None and now - hit[0] < CACHE_SECONDS:
                self._cache.move_to_end(term)
                return hit[1]
        row = conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?", (f'"{term}"',)).fetchone()
        docs = int(row[0]) if row else 0
        with self._lock:
            self._cache[term] = (now, docs)
            self._cache.move_to_end(term)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return docs

    def selective(self, conn: sqlite3.Connection, terms: list[str]) -> list[str]:
        """The words to rank with: those in at most ``max_docs`` documents, else the rarest."""
        if self.max_docs <= 0:
            return terms
        counted = [(t, self.count(conn, t)) for t in terms]
        present = [(t, n) for t, n in counted if n > 0]
        kept = [t for t, n in present if n <= self.max_docs]
        if kept or not present:
            return kept
        return [min(present, key=lambda tn: tn[1])[0]]
