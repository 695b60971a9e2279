"""Which query words a keyword search ranks with, so its cost stays bounded (both backends).

A keyword search's cost follows the documents its words match. Words found in very many
documents also carry the least weight in BM25-style ranking (their idf is a third of a rare
word's), so the search leaves out words found in more than ``max_docs`` documents, as long
as a rarer word remains; when every word is that common, the rarest one is kept.

Counts are over the whole index (every tenant), like the cost they bound; they decide only
which words are scored, never which documents a tenant may see. They change slowly and are
cached for a minute.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

#: default bound on the documents one query word may match before it is left out
MAX_DOCS_PER_TERM = 2000
CACHE_SECONDS = 60.0
CACHE_SIZE = 20_000


def choose_terms(counted: Sequence[tuple[str, int]], max_docs: int) -> list[str]:
    """The words to rank with: those in at most ``max_docs`` documents, else the rarest.
    ``max_docs`` 0 keeps every word that occurs."""
    present = [(t, n) for t, n in counted if n > 0]
    if max_docs <= 0:
        return [t for t, _ in present]
    kept = [t for t, n in present if n <= max_docs]
    if kept or not present:
        return kept
    return [min(present, key=lambda tn: tn[1])[0]]


class CountCache:
    """Recent document counts by word; safe to share between threads."""

    def __init__(self, *, seconds: float = CACHE_SECONDS, size: int = CACHE_SIZE):
        self.seconds = seconds
        self.size = size
        self._entries: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, term: str) -> int | None:
        with self._lock:
            hit = self._entries.get(term)
            if hit is None or time.monotonic() - hit[0] >= self.seconds:
                return None
            self._entries.move_to_end(term)
            return hit[1]

    def clear(self) -> None:
        """Forget every count (an erasure: the words are the erased text's)."""
        with self._lock:
            self._entries.clear()

    def put(self, term: str, docs: int) -> None:
        with self._lock:
            self._entries[term] = (time.monotonic(), docs)
            self._entries.move_to_end(term)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


__all__ = ["MAX_DOCS_PER_TERM", "CountCache", "choose_terms"]
